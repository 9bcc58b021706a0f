
output_sequence
Já3Â