// Auth module: placeholder until its first source file lands.
