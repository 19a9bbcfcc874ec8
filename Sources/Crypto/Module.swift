// Crypto module: placeholder until its first source file lands.
