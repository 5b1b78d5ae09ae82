"""Outgoing mail that survives an outage: every email is sent at once if it can be, and kept in
an outbox table, to be sent again later, when it cannot (docs/accounts.md)."""
