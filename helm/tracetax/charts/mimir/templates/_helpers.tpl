{{/* Names and labels of the bundled mimir: "<release>-mimir", reachable from the parent chart. */}}
{{- define "mimir.fullname" -}}
{{- printf "%s-mimir" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "mimir.selectorLabels" -}}
app.kubernetes.io/name: mimir
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "mimir.labels" -}}
{{ include "mimir.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | quote }}
app.kubernetes.io/component: metrics-store
app.kubernetes.io/part-of: tracetax
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}
