devices
