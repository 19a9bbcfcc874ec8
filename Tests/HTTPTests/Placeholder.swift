// HTTPTests: placeholder until its tests merge.
