from django.urls import path

from . import data_views, shared_views, views

app_name = "learning"

urlpatterns = [
    path("", views.home, name="home"),
    path("pricing/", views.pricing, name="pricing"),
    path("units/<slug:unit_slug>/", views.unit_detail, name="unit"),
    path("units/<slug:unit_slug>/<int:number>/", views.section_detail, name="section"),
    # a part of a section on a page of its own (coursebook/own_pages.py): §13 walk/, §8 numbers/
    path(
        "units/<slug:unit_slug>/<int:number>/<slug:name>/",
        views.section_own_page,
        name="section_own_page",
    ),
    path("units/<slug:unit_slug>/lab/", views.lab_page, name="lab"),
    # "Keep this unit on this phone": what the owner's browser stores (learning/keeping.py)
    path("units/<slug:unit_slug>/keep/", views.unit_keep, name="unit_keep"),
    # a section's own cut of the Devanagari font, named by its hash (coursebook/fonts.py)
    path(
        "units/<slug:unit_slug>/fonts/<str:name>",
        views.section_font,
        name="section_font",
    ),
    # a widget's large initial state, named by its hash (coursebook/state_files.py)
    path(
        "units/<slug:unit_slug>/data/<str:name>",
        data_views.state_file,
        name="state_file",
    ),
    # the attention lab's API at its first address: the kit's server route for the lab
    path(
        "units/<slug:unit_slug>/lab/attention/",
        views.widget_api,
        {"widget": "attention-lab"},
        name="lab_api",
    ),
    # a map shared from the lab: the buyer's share endpoint, the public page and its picture
    path("units/<slug:unit_slug>/lab/share/", shared_views.share_map, name="lab_share"),
    path(
        "units/<slug:unit_slug>/lab/shared/<str:token>/",
        shared_views.shared_map,
        name="shared_map",
    ),
    path(
        "units/<slug:unit_slug>/lab/shared/<str:token>/map.png",
        shared_views.shared_map_png,
        name="shared_map_png",
    ),
    path("units/<slug:unit_slug>/widgets/<slug:widget>/", views.widget_api, name="widget_api"),
    path("units/<slug:unit_slug>/checks/<slug:check_id>/", views.check_answer, name="check_answer"),
    path(
        "units/<slug:unit_slug>/checks/<slug:check_id>/show-me/",
        views.check_reveal,
        name="check_reveal",
    ),
]
