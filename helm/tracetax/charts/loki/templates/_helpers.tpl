{{/* Names and labels of the bundled loki: "<release>-loki", reachable from the parent chart. */}}
{{- define "loki.fullname" -}}
{{- printf "%s-loki" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "loki.selectorLabels" -}}
app.kubernetes.io/name: loki
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "loki.labels" -}}
{{ include "loki.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | quote }}
app.kubernetes.io/component: logs-store
app.kubernetes.io/part-of: tracetax
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}
