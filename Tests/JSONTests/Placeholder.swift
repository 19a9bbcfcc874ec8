// JSONTests: placeholder until its tests merge.
