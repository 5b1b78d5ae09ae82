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
    """One learner's history on one check or problem: their stored answer and how they got there.

    The verdict is stored with the answer (correct, mistakes, fields_right) together with the
    version of the check it was graded against: a page shows it as graded, never regrades it.
    A wrong answer never replaces a right one of the same variant. For a check with fresh
    numbers, variant is the seed of the variant the stored answer is for; the per-variant fields
    (variant_attempts, wrong_attempts, revealed_at, last_answer, verdict) start again with a new
    variant, while attempts, solved_at and first_try_variants count across variants.
    """

    unit_slug = models.SlugField(max_length=80)
    check_id = models.SlugField(max_length=80)
    last_answer = models.JSONField(default=list, help_text="the raw text of each box")
    correct = models.BooleanField(default=False, help_text="is the stored answer right?")
    mistakes = models.JSONField(
        default=list, blank=True, help_text="names of the named mistakes the stored answer makes"
    )
    fields_right = models.JSONField(default=list, blank=True, help_text="per box: right or not")
    check_version = models.CharField(
        max_length=12, blank=True, help_text="the version of the check the answer was graded by"
    )
    variant = models.PositiveIntegerField(
        null=True, blank=True, help_text="the seed of the variant answered (fresh numbers)"
    )
    first_try_correct = models.BooleanField(default=False)
    attempts = models.PositiveIntegerField(default=0, help_text="answers graded, all variants")
    variant_attempts = models.PositiveIntegerField(default=0, help_text="on this variant")
    wrong_attempts = models.PositiveIntegerField(default=0, help_text="on this variant")
    first_try_variants = models.JSONField(
        default=list, blank=True, help_text="seeds of the variants solved at the first try"
    )
    revealed_at = models.DateTimeField(
        null=True, blank=True, help_text="when the worked answer was asked for (this variant)"
    )
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
