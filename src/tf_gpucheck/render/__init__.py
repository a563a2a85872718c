"""Renderers: turn gpucheck's data into Rich renderables, JSON or Markdown. They decide nothing."""
