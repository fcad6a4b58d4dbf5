{{/* Names and labels of the bundled tempo: "<release>-tempo", reachable from the parent chart. */}}
{{- define "tempo.fullname" -}}
{{- printf "%s-tempo" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "tempo.selectorLabels" -}}
app.kubernetes.io/name: tempo
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "tempo.labels" -}}
{{ include "tempo.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | quote }}
app.kubernetes.io/component: traces-store
app.kubernetes.io/part-of: tracetax
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}
