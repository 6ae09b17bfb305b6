{{/* Names and labels, as the OpenTelemetry charts make them. */}}

{{- define "k8s-collector.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release name, plus the chart name unless the release name already contains it. */}}
{{- define "k8s-collector.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "k8s-collector.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "k8s-collector.selectorLabels" -}}
app.kubernetes.io/name: {{ include "k8s-collector.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "k8s-collector.labels" -}}
helm.sh/chart: {{ include "k8s-collector.chart" . }}
{{ include "k8s-collector.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.additionalLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "k8s-collector.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "k8s-collector.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "k8s-collector.leaseName" -}}
{{- default (include "k8s-collector.fullname" .) .Values.leaderElection.leaseName }}
{{- end }}

{{- define "k8s-collector.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* README "Memory sizing": the memory request and limit of each cluster size's row. */}}
{{- define "k8s-collector.resources" -}}
{{- if .Values.resources }}
{{- toYaml .Values.resources }}
{{- else }}
{{- $presets := dict "small" (list "192Mi" "256Mi") "medium" (list "256Mi" "320Mi") "large" (list "384Mi" "448Mi") }}
{{- $row := get $presets .Values.clusterSize }}
requests:
  cpu: 100m
  memory: {{ index $row 0 }}
limits:
  memory: {{ index $row 1 }}
{{- end }}
{{- end }}
