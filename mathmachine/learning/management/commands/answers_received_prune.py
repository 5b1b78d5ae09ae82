"""Forget the ids of answers received long ago (learning.models.ReceivedAnswer)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from mathmachine.learning.services import RECEIVED_ANSWER_DAYS, answers_received_prune


class Command(BaseCommand):
    help = (
        "Delete the ids of answers received more than DAYS days ago (90 unless given): "
        "run daily. An answer sent again after that would be graded as a new one."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--days", type=int, default=RECEIVED_ANSWER_DAYS, help="keep ids this many days"
        )

    def handle(self, *args: Any, days: int = RECEIVED_ANSWER_DAYS, **options: Any) -> None:
        try:
            deleted = answers_received_prune(days=days)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"received answers: {deleted} older than {days} days deleted")
