"""The user-facing shell: the `pbm` command. Nothing imports it."""
