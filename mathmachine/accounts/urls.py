from django.urls import path

from . import views

app_name = "accounts"

urlpatterns = [
    path("your-learning/", views.dashboard, name="dashboard"),
]
