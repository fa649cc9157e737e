info --max-input lots x
