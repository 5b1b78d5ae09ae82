from django.contrib import admin

from .models import CheckAnswer, SectionVisit


@admin.register(CheckAnswer)
class CheckAnswerAdmin(admin.ModelAdmin):
    list_display = ("__str__", "correct", "first_try_correct", "attempts", "updated_at")
    list_filter = ("unit_slug", "correct", "first_try_correct")
    search_fields = ("user__email", "user__username", "check_id", "anon_token")
    readonly_fields = ("first_answered_at", "updated_at")


@admin.register(SectionVisit)
class SectionVisitAdmin(admin.ModelAdmin):
    list_display = ("__str__", "visits", "last_visited_at")
    list_filter = ("unit_slug", "section_number")
    search_fields = ("user__email", "user__username", "anon_token")
