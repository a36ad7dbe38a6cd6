"""Replay tooling: rebuild, export/import, verify, audit. Read-only over the log (only
archive.restore writes, a whole checked log or nothing).

    log      a game's envelopes and events, folded to a table at any seq (from Redis or bytes)
    archive  the replay file (msgpack: magic, header, envelopes as stored) and its import
    verify   seqs, hash chain, seed commitment, deals and re-adjudication of every command
    diff     the first divergence of two logs
    audit    a referee's Markdown report
"""
