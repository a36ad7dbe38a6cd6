"""The job path that notices queued before the shell's rooms still name: rq resolves a job's
function by the dotted path stored with it, and a deadline's reminder may wait in rq's scheduler
for days. New jobs name pbm.mail.notify.notify_seat (workers/dispatch.py). Nothing imports this.
"""

from pbm.mail.notify import notify_seat

__all__ = ["notify_seat"]
