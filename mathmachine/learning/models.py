"""A learner's progress: check answers and sections reached.

Content (units, sections, checks) is not in the database: it is compiled from content/units by
the coursebook. Rows here point at it by unit slug, section number and check id.

A learner is either a signed-in user or, before signing up, an anonymous token kept in the
session (a UUID, which survives the session-key rotation at sign-in). Rows of an anonymous
learner are moved to the account when they sign up or sign in.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class LearnerOwned(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    anon_token = models.UUIDField(null=True, blank=True, db_index=True)

    class Meta:
        abstract = True

    @property
    def learner_label(self) -> str:
        return str(self.user) if self.user_id else f"anonymous {str(self.anon_token)[:8]}"


def _owner_constraints(name: str, fields: tuple[str, ...]) -> list[models.BaseConstraint]:
    return [
        models.CheckConstraint(
            condition=(Q(user__isnull=False) & Q(anon_token__isnull=True))
            | (Q(user__isnull=True) & Q(anon_token__isnull=False)),
            name=f"{name}_one_owner",
        ),
        models.UniqueConstraint(
            fields=("user", *fields), condition=Q(user__isnull=False), name=f"{name}_user_unique"
        ),
        models.UniqueConstraint(
            fields=("anon_token", *fields),
            condition=Q(anon_token__isnull=False),
            name=f"{name}_anon_unique",
        ),
    ]


class CheckAnswer(LearnerOwned):
    """One learner's history on one check: their latest answer and how they got there."""

    unit_slug = models.SlugField(max_length=80)
    check_id = models.SlugField(max_length=80)
    last_answer = models.JSONField(default=list, help_text="the raw text of each field")
    correct = models.BooleanField(default=False, help_text="is the latest answer right?")
    first_try_correct = models.BooleanField(default=False)
    attempts = models.PositiveIntegerField(default=0)
    solved_at = models.DateTimeField(null=True, blank=True, help_text="first time answered right")
    first_answered_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = _owner_constraints("checkanswer", ("unit_slug", "check_id"))
        ordering = ("-updated_at",)

    def __str__(self) -> str:
        return f"{self.learner_label} · {self.unit_slug}/{self.check_id}"


class SectionVisit(LearnerOwned):
    """A section a learner has opened; the latest one is where they resume."""

    unit_slug = models.SlugField(max_length=80)
    section_number = models.PositiveSmallIntegerField()
    visits = models.PositiveIntegerField(default=0)
    first_visited_at = models.DateTimeField(auto_now_add=True)
    last_visited_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = _owner_constraints("sectionvisit", ("unit_slug", "section_number"))
        ordering = ("-last_visited_at",)

    def __str__(self) -> str:
        return f"{self.learner_label} · {self.unit_slug} §{self.section_number}"
