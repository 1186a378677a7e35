"""Submissions: bot folders read safely, names, manifests, submitting versions, `bot check`,
retiring."""
