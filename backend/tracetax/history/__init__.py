"""Overhead history (issue 24), free of HTTP, of the database and of any subject: the pure logic over the
series of paired overheads that checks leave behind, one point per check (an estimate and its
95% interval), oldest first.

- `changepoints`: where a series shifted (ruptures proposes, each break is kept only if the
  shift is significant against the points' own intervals and the scatter within segments);
- `gate`: the verdict of a check against the last N points of a branch;
- `markdown`: a check's report in GitHub-flavoured Markdown (step summary, PR comment);
- `badge`: a shields-style SVG badge;
- `metrics`: what a history metric is named by (label, unit) and how its values are written;
  the metrics themselves are the subjects', which app/ hands down from the registry.
"""
