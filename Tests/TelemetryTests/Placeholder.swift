// TelemetryTests: placeholder until its tests merge.
