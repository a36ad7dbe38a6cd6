"""Mail in and out: moves by mail (inbound: one message, one move, one answer; smtp: the SMTP
server in front of it), and what pbm tells a seat (notify composes a turn notice, a reminder or an
answer; outbox sends it by mail or signed webhook). It must not import the other front ends
(pbm.cli, pbm.web); the CLI's mail commands import only the names below, when they run.
aiosmtpd is imported by `serve` only.
"""

from pbm.mail.inbound import MAX_MESSAGE_BYTES, MailSettingError, Received, receive, sender_check
from pbm.mail.smtp import serve

__all__ = ["MAX_MESSAGE_BYTES", "MailSettingError", "Received", "receive", "sender_check", "serve"]
