"""Deployment helpers: building and running arkevo's artefacts outside the workers."""
