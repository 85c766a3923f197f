"""What send_notifications prints: counted words, never "mail(s)"."""

from comments.management.commands.send_notifications import sent_line


def test_one_mail_is_a_mail_and_others_are_mails():
    assert sent_line(sent=1, dropped=0) == "Sent 1 notification mail; 0 no longer needed."
    assert sent_line(sent=0, dropped=2) == "Sent 0 notification mails; 2 no longer needed."
    assert sent_line(sent=3, dropped=1) == "Sent 3 notification mails; 1 no longer needed."
