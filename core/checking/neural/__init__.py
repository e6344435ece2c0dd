"""The encoder rebuilt in torch (multilingual-e5-small) and the models on it: token-level detector, \
pair reader, cross-encoder; the CPU precision setting."""
