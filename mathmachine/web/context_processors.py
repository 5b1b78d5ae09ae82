from django.conf import settings
from django.http import HttpRequest


def site(request: HttpRequest) -> dict[str, object]:
    return {"COURSE_NAME": settings.COURSE_NAME}
