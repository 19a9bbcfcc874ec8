// EndToEndTests: placeholder until its first test file lands.
