"""The two products of the published offer: Unit 18 (₹299) and the bundle of all paid units (₹999).

Unit 18 is the first paid unit; the other six paid units get their unit product (and so become
paid units, covered by the bundle) in the migration that ships each of them.
"""

from django.db import migrations

PRODUCTS = [
    {
        "code": "unit-18",
        "kind": "unit",
        "unit_number": 18,
        "name": "Unit 18 · Attention and Transformers",
        "description": "Every section, widget, check and the practice arena of Unit 18.",
        "price_paise": 29900,
    },
    {
        "code": "all-paid-units",
        "kind": "bundle",
        "unit_number": None,
        "name": "All seven paid units",
        "description": "Every paid unit of the course, including those published later.",
        "price_paise": 99900,
    },
]


def create_products(apps, schema_editor):
    Product = apps.get_model("billing", "Product")
    for fields in PRODUCTS:
        Product.objects.update_or_create(
            code=fields["code"], defaults={**fields, "currency": "INR"}
        )


def delete_products(apps, schema_editor):
    Product = apps.get_model("billing", "Product")
    Product.objects.filter(code__in=[p["code"] for p in PRODUCTS], orders__isnull=True).delete()


class Migration(migrations.Migration):
    dependencies = [("billing", "0001_initial")]

    operations = [migrations.RunPython(create_products, delete_products)]
