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
    numbers, variant is the seed of the variant the stored answer is for, and the per-variant
    fields (variant_attempts, wrong_attempts, revealed_at, last_answer, verdict) are those of
    that variant, copied from its VariantRecord (which keeps them when the learner moves to other
    numbers and back); attempts, solved_at, first_try_variants and first_try_numbers count across
    variants. Proficiency counts first_try_numbers: two seeds that draw the same numbers are one.
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
    first_try_numbers = models.JSONField(
        default=list,
        blank=True,
        help_text="digests of the numbers solved at the first try (variants.numbers_of)",
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

    def show_variant(self, record: VariantRecord) -> None:
        """This row (unsaved) as it stands on ``record``'s numbers: that seed's own tries,
        reveal, stored answer and verdict; the totals across seeds stay."""
        self.variant = record.seed
        self.variant_attempts = record.attempts
        for name in PER_VARIANT:
            setattr(self, name, getattr(record, name))

    def keep_variant(self, record: VariantRecord) -> None:
        """What this row holds of its variant, into that variant's record."""
        record.attempts = self.variant_attempts
        for name in PER_VARIANT:
            setattr(record, name, getattr(self, name))


# Fields of the variant shown, the same in CheckAnswer and VariantRecord.
PER_VARIANT = (
    "wrong_attempts",
    "revealed_at",
    "last_answer",
    "correct",
    "mistakes",
    "fields_right",
    "check_version",
)


class VariantRecord(LearnerOwned):
    """One learner's history on one set of numbers (one seed) of a check or problem with fresh
    numbers: never reset by answering other seeds, so a wrong try or a reveal on any seed is
    never forgotten, and a seed's page shows that seed's own answer and verdict.

    numbers: a digest of the variant's numbers (variants.numbers_of); two seeds that draw the
    same numbers have the same digest. first_try_correct: solved at the first try on this seed,
    the worked answer not shown first.
    """

    unit_slug = models.SlugField(max_length=80)
    check_id = models.SlugField(max_length=80)
    seed = models.PositiveIntegerField()
    numbers = models.CharField(max_length=24, blank=True, help_text="digest of the numbers")
    attempts = models.PositiveIntegerField(default=0)
    wrong_attempts = models.PositiveIntegerField(default=0)
    revealed_at = models.DateTimeField(null=True, blank=True)
    first_try_correct = models.BooleanField(default=False)
    solved_at = models.DateTimeField(null=True, blank=True)
    last_answer = models.JSONField(default=list, help_text="the raw text of each box")
    correct = models.BooleanField(default=False)
    mistakes = models.JSONField(default=list, blank=True)
    fields_right = models.JSONField(default=list, blank=True)
    check_version = models.CharField(max_length=12, blank=True)
    first_answered_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = _owner_constraints("variantrecord", ("unit_slug", "check_id", "seed"))
        ordering = ("-updated_at",)

    def __str__(self) -> str:
        return f"{self.learner_label} · {self.unit_slug}/{self.check_id} seed {self.seed}"


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


class RetiredLearnerToken(models.Model):
    """An anonymous learner token that has served its purpose: its progress joined an account
    at sign-in (learner_progress_claim). The offered token travels in a cookie, a bearer value
    anyone holding a copy could present; once retired it is never adopted again (a fresh token
    is made instead), so a copy of it opens nothing."""

    token = models.UUIDField(primary_key=True)
    retired_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"retired {str(self.token)[:8]}"


class SharedMap(models.Model):
    """One attention map a buyer shared from the lab (§6): the sentence, the layer and head, and
    the map as it was computed then, kept so that the link opens it for anyone (signed out, not
    a buyer) without running the model again (mathmachine.learning.shared). Only the lab's
    share endpoint makes one, for a learner who may use the lab; the same sentence, layer and
    head shared twice is one row. The sentence is kept because it was shared: the share box says
    so."""

    public_id = models.CharField(max_length=16, unique=True)
    digest = models.CharField(max_length=64, unique=True)  # sha256 of model, text, layer, head
    unit_slug = models.SlugField(max_length=100)
    text = models.TextField()
    layer = models.PositiveSmallIntegerField()
    head = models.PositiveSmallIntegerField()
    tokens = models.JSONField()  # the model's tokens, [CLS] first
    units = models.JSONField()  # the weights in thousandths, each row summing to 1000
    sink = models.FloatField()  # the mean share of a row on [CLS] and [SEP]
    png = models.BinaryField()  # the map as a picture, for the link's preview in a chat
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    def __str__(self) -> str:
        return f"shared map {self.public_id}: layer {self.layer}, head {self.head}"


class ReceivedAnswer(LearnerOwned):
    """An answer the page's script sent with an id it made on the device (``client_answer_id``):
    kept so that the same answer sent again (queued offline and sent when the connection
    returned, or sent twice because the first reply was lost) is answered as the first time,
    with the same verdict and feedback, and changes nothing: no second attempt is counted.
    The id is unique per learner; two learners' ids never meet. Pruned after 90 days
    (``manage.py answers_received_prune``)."""

    client_answer_id = models.CharField(max_length=64)
    unit_slug = models.SlugField(max_length=80)
    check_id = models.SlugField(max_length=80)
    status = models.PositiveSmallIntegerField(help_text="the HTTP status of the first answer")
    payload = models.JSONField(help_text="the first answer's JSON: verdict, message, the check")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = _owner_constraints("receivedanswer", ("client_answer_id",))
        ordering = ("-created_at",)

    def __str__(self) -> str:
        return f"{self.learner_label} · {self.unit_slug}/{self.check_id} · {self.client_answer_id}"
