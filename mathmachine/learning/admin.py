"""Learners' progress in the admin: check answers and section visits, to look at, never to edit.

An answer is the learner's own record (what they typed, when, how many tries): the operator can
read it and can delete it (with the learner's account, or on request), never change it or make
one up, so nothing in the admin can alter a learner's progress.
"""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from .models import CheckAnswer, SectionVisit


class ProgressAdmin(admin.ModelAdmin):
    """Read-only: no add, no change (every field is shown, none is a form field)."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(CheckAnswer)
class CheckAnswerAdmin(ProgressAdmin):
    list_display = ("__str__", "correct", "first_try_correct", "attempts", "updated_at")
    list_filter = ("unit_slug", "correct", "first_try_correct")
    search_fields = ("user__email", "user__username", "check_id", "anon_token")


@admin.register(SectionVisit)
class SectionVisitAdmin(ProgressAdmin):
    list_display = ("__str__", "visits", "last_visited_at")
    list_filter = ("unit_slug", "section_number")
    search_fields = ("user__email", "user__username", "anon_token")
