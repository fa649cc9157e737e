fetch file://remotehost/tmp
