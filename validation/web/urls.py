from django.urls import path

from validation.web import dashboard, new_analysis, own_fix, views

urlpatterns = [
    path("", views.queue, name="queue"),
    path("next/", views.queue_next, name="queue_next"),
    path("dashboard/", dashboard.dashboard, name="dashboard"),
    path("dashboard/data/", dashboard.dashboard_json, name="dashboard_data"),
    path("policy/", views.policy, name="policy"),
    path("analyses/new/", new_analysis.analysis_new, name="analysis_new"),
    path("analyses/<int:pk>/", views.analysis_review, name="analysis_review"),
    path("analyses/<int:pk>/row/", views.queue_row, name="analysis_queue_row"),
    path("analyses/<int:pk>/status/", views.analysis_status, name="analysis_status"),
    path("analyses/<int:pk>/claim/", views.analysis_claim, name="analysis_claim"),
    path("analyses/<int:pk>/release/", views.analysis_release, name="analysis_release"),
    path("analyses/<int:pk>/apply/", views.fixes_apply, name="fixes_apply"),
    path("analyses/<int:pk>/sign-off/", views.analysis_sign_off, name="analysis_sign_off"),
    path("analyses/<int:pk>/reject/", views.analysis_reject, name="analysis_reject"),
    path("analyses/<int:pk>/revalidate/", views.analysis_revalidate, name="analysis_revalidate"),
    path("analyses/<int:pk>/fixes/bulk-accept/", views.fixes_bulk_accept, name="fixes_bulk_accept"),
    path("analyses/<int:pk>/fixes/new/", own_fix.fix_author, name="fix_author"),
    path("analyses/<int:pk>/fixes/<int:fix_id>/accept/", views.fix_accept, name="fix_accept"),
    path("analyses/<int:pk>/fixes/<int:fix_id>/reject/", views.fix_reject, name="fix_reject"),
    path("analyses/<int:pk>/fixes/<int:fix_id>/edit/", views.fix_edit, name="fix_edit"),
    path("analyses/<int:pk>/fixes/<int:fix_id>/undo/", views.fix_undo, name="fix_undo"),
]
