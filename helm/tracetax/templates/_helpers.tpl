{{/* Names, labels and the endpoints the backend and the Collector use. */}}

{{- define "tracetax.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "tracetax.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "tracetax.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Selector labels of one component: include with (dict "ctx" $ "component" "backend"). */}}
{{- define "tracetax.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tracetax.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* All labels; "version" (optional) is the component's own version, default the appVersion. */}}
{{- define "tracetax.labels" -}}
{{ include "tracetax.selectorLabels" . }}
app.kubernetes.io/version: {{ .version | default .ctx.Chart.AppVersion | quote }}
app.kubernetes.io/part-of: tracetax
app.kubernetes.io/managed-by: {{ .ctx.Release.Service }}
helm.sh/chart: {{ include "tracetax.chart" .ctx }}
{{- end -}}

{{- define "tracetax.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "tracetax.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "tracetax.collectorName" -}}
{{- printf "%s-collector" (include "tracetax.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Bundled backends are "<release>-<name>" (charts/<name>); their ports default as there. */}}
{{- define "tracetax.tempoUrl" -}}
{{- if .Values.tempo.enabled -}}
{{- printf "http://%s-tempo:%v" .Release.Name (dig "ports" "http" 3200 .Values.tempo) -}}
{{- else -}}
{{- .Values.externalBackends.tempo.url -}}
{{- end -}}
{{- end -}}

{{- define "tracetax.tempoOtlpGrpcEndpoint" -}}
{{- if .Values.tempo.enabled -}}
{{- printf "%s-tempo:%v" .Release.Name (dig "ports" "otlpGrpc" 4317 .Values.tempo) -}}
{{- else -}}
{{- .Values.externalBackends.tempo.otlpGrpcEndpoint -}}
{{- end -}}
{{- end -}}

{{- define "tracetax.lokiUrl" -}}
{{- if .Values.loki.enabled -}}
{{- printf "http://%s-loki:%v" .Release.Name (dig "ports" "http" 3100 .Values.loki) -}}
{{- else -}}
{{- .Values.externalBackends.loki.url | trimSuffix "/" -}}
{{- end -}}
{{- end -}}

{{- define "tracetax.metricsUrl" -}}
{{- if .Values.mimir.enabled -}}
{{- printf "http://%s-mimir:%v" .Release.Name (dig "ports" "http" 9009 .Values.mimir) -}}
{{- else -}}
{{- .Values.externalBackends.metrics.url -}}
{{- end -}}
{{- end -}}

{{- define "tracetax.metricsOtlpEndpoint" -}}
{{- if .Values.mimir.enabled -}}
{{- printf "%s/otlp" (include "tracetax.metricsUrl" .) -}}
{{- else -}}
{{- .Values.externalBackends.metrics.otlpEndpoint | trimSuffix "/" -}}
{{- end -}}
{{- end -}}

{{- define "tracetax.apiTokenSecretName" -}}
{{- if .Values.backend.auth.existingSecret -}}
{{- .Values.backend.auth.existingSecret -}}
{{- else -}}
{{- printf "%s-api-token" (include "tracetax.fullname" .) -}}
{{- end -}}
{{- end -}}

{{- define "tracetax.databaseSecretName" -}}
{{- if .Values.backend.database.existingSecret -}}
{{- .Values.backend.database.existingSecret -}}
{{- else -}}
{{- printf "%s-database" (include "tracetax.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/*
TRACETAX_ALLOWED_HOSTS: the Host names the backend answers besides IP literals. localhost for
kubectl port-forward, every name of its Service, the Ingress host, then backend.allowedHosts.
*/}}
{{- define "tracetax.allowedHosts" -}}
{{- $service := include "tracetax.fullname" . -}}
{{- $namespace := .Release.Namespace -}}
{{- $hosts := list "localhost" $service (printf "%s.%s" $service $namespace) (printf "%s.%s.svc" $service $namespace) (printf "%s.%s.svc.%s" $service $namespace .Values.clusterDomain) -}}
{{- if .Values.ingress.enabled -}}
{{- $hosts = append $hosts .Values.ingress.host -}}
{{- end -}}
{{- concat $hosts .Values.backend.allowedHosts | uniq | join "," -}}
{{- end -}}

{{/* Selector labels of the pods that may reach the bundled stores: the backend and the Collector. */}}
{{- define "tracetax.storeClients" -}}
- podSelector:
    matchLabels:
      {{- include "tracetax.selectorLabels" (dict "ctx" . "component" "backend") | nindent 6 }}
- podSelector:
    matchLabels:
      {{- include "tracetax.selectorLabels" (dict "ctx" . "component" "collector") | nindent 6 }}
{{- with .Values.networkPolicy.storesFrom }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Egress every pod of the chart keeps: DNS, wherever the cluster serves it (kube-dns, NodeLocal DNSCache). */}}
{{- define "tracetax.dnsEgress" -}}
- ports:
    - port: 53
      protocol: UDP
    - port: 53
      protocol: TCP
{{- end -}}

{{/*
Anything the backend or the Collector reaches outside the chart: an external database, existing
backends (externalBackends). Empty when everything is bundled.
*/}}
{{- define "tracetax.externalDependencies" -}}
{{- $outside := list -}}
{{- if or .Values.backend.database.url .Values.backend.database.existingSecret -}}
{{- $outside = append $outside "backend.database" -}}
{{- end -}}
{{- range $store := list "tempo" "loki" "mimir" -}}
{{- if not (index $.Values $store).enabled -}}
{{- $outside = append $outside (printf "externalBackends (%s.enabled=false)" $store) -}}
{{- end -}}
{{- end -}}
{{- join ", " $outside -}}
{{- end -}}
