help info
