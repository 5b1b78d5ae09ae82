from django.urls import path

from . import views

app_name = "billing"

urlpatterns = [
    path("buy/<slug:code>/", views.buy, name="buy"),
    path("orders/", views.orders, name="orders"),
    path("orders/<uuid:public_id>/", views.receipt, name="receipt"),
    path("orders/<uuid:public_id>/pay/", views.checkout, name="checkout"),
    path("orders/<uuid:public_id>/test-pay/", views.testmode_pay, name="testmode_pay"),
    path("orders/<uuid:public_id>/callback/", views.callback, name="callback"),
    path("orders/<uuid:public_id>/refund/", views.refund, name="refund"),
    path("webhooks/razorpay/", views.webhook, name="webhook"),
]
