"""The log: envelopes, the codec, the Redis store and the command path (the only writer).

Imports core, never the shell (pbm/) or the workers.
"""
