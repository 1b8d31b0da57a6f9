// Package fleetgen writes a synthetic multi-tenant fleet: apps (a Deployment,
// a Service and a ConfigMap each) rendered for many tenants, with the EFS
// wrapper fragment injected and ConfigMaps hashed. krender's benchmarks and
// its parallel-rendering tests use it so that both see a realistic fleet.
//
// Beside the apps, the fleet holds a CustomResourceDefinition (CRDsDir) and
// one custom resource of it per app (CustomDir), which only a check given
// both reads: the apps, and so every render, stay as they are.
package fleetgen

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing/fstest"
)

// Fleet describes what to generate.
type Fleet struct {
	Apps    int
	Tenants int
}

// Files of a generated fleet, relative to its directory.
const (
	Profile       = "fleet.yaml"        // every stage on
	ProfileNoHash = "fleet-nohash.yaml" // the same with hashing off
	AppsDir       = "apps"
	Fragment      = "common/efs-zone-command.yaml"
	// CRDsDir holds CRD, for `krender check --crds`.
	CRDsDir = "crds"
	CRD     = CRDsDir + "/servicemonitors.monitoring.example.com.yaml"
	// CustomDir holds each app's ServiceMonitor, a custom resource of CRD.
	CustomDir = "custom"
)

// CustomKind is the kind CRD defines, and CRDName the CRD's name.
const (
	CustomKind = "ServiceMonitor"
	CRDName    = "servicemonitors.monitoring.example.com"
)

// TypoEvery: every TypoEvery-th app's ServiceMonitor misspells one field
// (TypoField), which a check against the CRD reports as an unknown field.
const (
	TypoEvery = 5
	TypoField = "spec.endpoints[0].scrapeTimout"
)

// Kinds is each app's files, in the order krender reads them.
var Kinds = []string{"configmap", "deployment", "service"}

// App is the name of app i (0-based).
func (f Fleet) App(i int) string { return fmt.Sprintf("app-%02d", i+1) }

// Tenant is the name of tenant k (0-based).
func (f Fleet) Tenant(k int) string { return fmt.Sprintf("tenant-%04d", k+1) }

// SubPath reports whether app i mounts its ConfigMap with subPath (the first does).
func (f Fleet) SubPath(i int) bool { return i == 0 }

// Objects is how many objects a full render produces.
func (f Fleet) Objects() int { return f.Apps * len(Kinds) * max(f.Tenants, 1) }

// Typo reports whether app i's ServiceMonitor misspells TypoField.
func (f Fleet) Typo(i int) bool { return i%TypoEvery == TypoEvery-1 }

// Typos is how many apps' ServiceMonitors misspell TypoField.
func (f Fleet) Typos() int { return f.Apps / TypoEvery }

// CustomObjects is how many custom resources a full render of CustomDir
// produces: one per app per tenant.
func (f Fleet) CustomObjects() int { return f.Apps * max(f.Tenants, 1) }

// Vars are the profile's variables for tenant k, in a fixed order.
func (f Fleet) Vars(k int) [][2]string {
	t := f.Tenant(k)
	return append(baseVars(), [][2]string{
		{"TENANT_ID", t},
		{"TENANT_NAMESPACE", "ns-" + t},
		{"PUBLIC_HOST", t + ".fleet.example.com"},
	}...)
}

func baseVars() [][2]string {
	return [][2]string{
		{"REGISTRY", "registry.example.com/fleet"},
		{"IMAGE_TAG", "2.7.1"},
		{"LOG_LEVEL", "info"},
		{"REPLICAS", "2"},
	}
}

// Placeholders fill the fragment's __NAME__ markers (type, value).
var Placeholders = [][3]string{
	{"EFS_HOSTNAME", "hostname", "fs-0123456789abcdef0.efs.ap-northeast-2.amazonaws.com"},
	{"EFS_IP_2A", "ip", "10.0.1.10"},
	{"EFS_IP_2C", "ip", "10.0.3.10"},
	{"ZONE_BOUNDARY", "int", "31"},
}

// Files is the whole fleet as path -> content.
// FS is Files in memory, for the tests and benchmarks that read the fleet
// through io/fs.
func (f Fleet) FS() fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, text := range f.Files() {
		fsys[name] = &fstest.MapFile{Data: text}
	}
	return fsys
}

func (f Fleet) Files() map[string][]byte {
	files := map[string][]byte{
		Profile:       []byte(f.profile()),
		ProfileNoHash: []byte("# The fleet with hashing off: the objects kustomize is given to hash.\nextends: " + Profile + "\nhash:\n  mode: \"off\"\n"),
		Fragment:      []byte(fragment),
	}
	for i := range f.Apps {
		app := f.App(i)
		files[filepath.Join(AppsDir, app, "configmap.yaml")] = []byte(expand(configMap, app, f.SubPath(i)))
		files[filepath.Join(AppsDir, app, "deployment.yaml")] = []byte(expand(deployment, app, f.SubPath(i)))
		files[filepath.Join(AppsDir, app, "service.yaml")] = []byte(expand(service, app, f.SubPath(i)))
		files[filepath.Join(CustomDir, app, "servicemonitor.yaml")] = []byte(f.customResource(i))
	}
	files[CRD] = []byte(crdText)
	return files
}

// CRDText is the CustomResourceDefinition in CRD.
func CRDText() []byte { return []byte(crdText) }

// CustomResource is app i's ServiceMonitor as rendered for tenant k: the
// template with the tenant's variables filled in.
func (f Fleet) CustomResource(i, k int) []byte {
	var pairs []string
	for _, v := range f.Vars(k) {
		pairs = append(pairs, "${"+v[0]+"}", v[1])
	}
	return []byte(strings.NewReplacer(pairs...).Replace(f.customResource(i)))
}

func (f Fleet) customResource(i int) string {
	tpl := serviceMonitor
	if f.Typo(i) {
		tpl = strings.Replace(tpl, "scrapeTimeout:", "scrapeTimout:", 1)
	}
	return expand(tpl, f.App(i), false)
}

// Write puts the fleet under dir.
func (f Fleet) Write(dir string) error { return WriteFiles(dir, f.Files()) }

func (f Fleet) profile() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Synthetic fleet: %d apps x %d tenants.\nvars:\n", f.Apps, f.Tenants)
	for _, v := range baseVars() {
		fmt.Fprintf(&b, "  %s: %q\n", v[0], v[1])
	}
	if f.Tenants > 0 {
		b.WriteString("tenants:\n")
	}
	for k := range f.Tenants {
		fmt.Fprintf(&b, "  %s:\n    vars: {", f.Tenant(k))
		for j, v := range f.Vars(k)[len(baseVars()):] {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s: %s", v[0], v[1])
		}
		b.WriteString("}\n")
	}
	fmt.Fprintf(&b, `inject:
  - name: efs-zone
    fragment: %s
    where: '.kind == "Deployment"'
    container: app
    exclude: [%s]
    delete: [.spec.template.spec.hostAliases]
    values:
`, Fragment, f.App(f.Apps-1))
	for _, p := range Placeholders {
		fmt.Fprintf(&b, "      %s: {value: %q, type: %s}\n", p[0], p[2], p[1])
	}
	b.WriteString("hash:\n  mode: suffix\n")
	return b.String()
}

func expand(tpl, app string, subPath bool) string {
	mount := "mountPath: /etc/" + app
	if subPath {
		mount = "mountPath: /etc/" + app + "/application.properties\n              subPath: application.properties"
	}
	return strings.NewReplacer("APP", app, "MOUNT", mount, "DB", strings.ReplaceAll(app, "-", "")).Replace(tpl)
}

const configMap = `# Settings of APP; mounted into its pods.
apiVersion: v1
kind: ConfigMap
metadata:
  name: APP-config
  namespace: ${TENANT_NAMESPACE}
  labels:
    app: APP
data:
  LOG_LEVEL: ${LOG_LEVEL}
  application.properties: |
    tenant.id=${TENANT_ID}
    public.url=https://${PUBLIC_HOST}/APP
    db.url=jdbc:postgresql://db.${TENANT_NAMESPACE}.svc:5432/DB
    cache.ttl=300
    feature.flags=search,export,audit
`

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: APP
  namespace: ${TENANT_NAMESPACE}
  labels:
    app: APP
    tenant: ${TENANT_ID}
spec:
  replicas: ${REPLICAS}
  selector:
    matchLabels:
      app: APP
  template:
    metadata:
      labels:
        app: APP
        tenant: ${TENANT_ID}
    spec:
      hostAliases:
        - ip: 10.0.1.10
          hostnames: [efs.internal]
      containers:
        - name: app
          image: ${REGISTRY}/APP:${IMAGE_TAG}
          env:
            - name: NODE_IP
              valueFrom:
                fieldRef:
                  fieldPath: status.hostIP
            - name: TENANT_ID
              value: ${TENANT_ID}
            - name: LOG_LEVEL
              valueFrom:
                configMapKeyRef:
                  name: APP-config
                  key: LOG_LEVEL
            - name: JAVA_OPTS
              value: "-Xmx$(HEAP_SIZE) -Dtenant=${TENANT_ID}"
            - name: HEAP_SIZE
              value: 512m
          ports:
            - name: http
              containerPort: 8080
          readinessProbe:
            httpGet:
              path: /healthz
              port: http
          resources:
            requests:
              cpu: 100m
              memory: 256Mi
            limits:
              memory: 512Mi
          volumeMounts:
            - name: config
              MOUNT
            - name: data
              mountPath: /data
        - name: log-shipper
          image: ${REGISTRY}/fluent-bit:3.1
          args: ["--config", "/fluent-bit/etc/fluent-bit.conf"]
      volumes:
        - name: config
          configMap:
            name: APP-config
        - name: data
          persistentVolumeClaim:
            claimName: shared-efs
`

const service = `apiVersion: v1
kind: Service
metadata:
  name: APP
  namespace: ${TENANT_NAMESPACE}
  labels:
    app: APP
spec:
  selector:
    app: APP
  ports:
    - name: http
      port: 80
      targetPort: http
`

// fragment is the EFS wrapper: it picks the mount target of the node's zone
// at run time, then starts the image's own entry point.
const fragment = `command: ["/bin/sh", "-c"]
args:
  - |
    set -eu
    octet=$(echo "$NODE_IP" | cut -d. -f3)
    if [ "$octet" -lt __ZONE_BOUNDARY__ ]; then efs_ip=__EFS_IP_2A__; else efs_ip=__EFS_IP_2C__; fi
    echo "$efs_ip __EFS_HOSTNAME__" >> /etc/hosts
    exec /app/start.sh "$@"
`

// serviceMonitor is each app's scrape configuration, a custom resource of
// crdText; the Prometheus operator's ServiceMonitor is its model.
const serviceMonitor = `# How Prometheus scrapes APP; checked against crds/, never rendered with the apps.
apiVersion: monitoring.example.com/v1
kind: ServiceMonitor
metadata:
  name: APP
  namespace: ${TENANT_NAMESPACE}
  labels:
    app: APP
    tenant: ${TENANT_ID}
    release: fleet-prometheus
spec:
  jobLabel: app
  targetLabels:
    - app
    - tenant
  selector:
    matchLabels:
      app: APP
    matchExpressions:
      - key: tenant
        operator: In
        values:
          - ${TENANT_ID}
  namespaceSelector:
    matchNames:
      - ${TENANT_NAMESPACE}
  sampleLimit: 20000
  endpoints:
    - port: http
      path: /metrics
      scheme: http
      interval: 30s
      scrapeTimeout: 10s
      honorLabels: true
      relabelings:
        - sourceLabels: [__meta_kubernetes_pod_node_name]
          targetLabel: node
        - action: labelmap
          regex: __meta_kubernetes_pod_label_(.+)
        - sourceLabels: [__address__]
          action: hashmod
          modulus: 4
          targetLabel: __tmp_shard
      metricRelabelings:
        - sourceLabels: [__name__]
          regex: go_gc_.*|process_start_time_seconds
          action: drop
    - targetPort: 9404
      path: /actuator/prometheus
      scheme: https
      interval: 1m
      tlsConfig:
        serverName: APP.${TENANT_NAMESPACE}.svc
        insecureSkipVerify: false
        ca:
          configMap:
            name: fleet-ca
            key: ca.crt
      authorization:
        type: Bearer
        credentials:
          name: APP-metrics-token
          key: token
`

// crdText defines ServiceMonitor: nested objects, arrays, enums, patterns,
// int-or-string, defaults, list and map types, a status subresource and CEL
// rules, in the shape of the Prometheus operator's CRD of that name.
var crdText = strings.ReplaceAll(crdTemplate, "RELABEL_CONFIGS\n", relabelConfigs)

const crdTemplate = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: servicemonitors.monitoring.example.com
spec:
  group: monitoring.example.com
  scope: Namespaced
  names:
    kind: ServiceMonitor
    listKind: ServiceMonitorList
    plural: servicemonitors
    singular: servicemonitor
    shortNames: [smon]
    categories: [fleet]
  versions:
    - name: v1
      served: true
      storage: true
      subresources:
        status: {}
      schema:
        openAPIV3Schema:
          description: How Prometheus discovers and scrapes the endpoints of a set of Services.
          type: object
          required: [spec]
          properties:
            apiVersion: {type: string}
            kind: {type: string}
            metadata: {type: object}
            spec:
              description: The Services to scrape and how.
              type: object
              required: [endpoints, selector]
              x-kubernetes-validations:
                - rule: "!has(self.targetLabels) || !has(self.podTargetLabels) || self.targetLabels.all(l, !(l in self.podTargetLabels))"
                  message: a label is copied from the Service or from the pod, not from both
              properties:
                jobLabel:
                  description: The Service label whose value names the job.
                  type: string
                  maxLength: 63
                targetLabels:
                  description: Service labels copied onto every scraped target.
                  type: array
                  maxItems: 16
                  items: {type: string, maxLength: 63}
                  x-kubernetes-list-type: set
                podTargetLabels:
                  type: array
                  maxItems: 16
                  items: {type: string, maxLength: 63}
                  x-kubernetes-list-type: set
                sampleLimit:
                  description: Samples one scrape may return before it is failed.
                  type: integer
                  format: int64
                  minimum: 0
                scrapeClass: {type: string, minLength: 1}
                selector:
                  description: The Services to scrape, by label.
                  type: object
                  x-kubernetes-map-type: atomic
                  properties:
                    matchLabels:
                      type: object
                      additionalProperties: {type: string}
                    matchExpressions:
                      type: array
                      items:
                        type: object
                        required: [key, operator]
                        properties:
                          key: {type: string}
                          operator:
                            type: string
                            enum: [In, NotIn, Exists, DoesNotExist]
                          values:
                            type: array
                            items: {type: string}
                            x-kubernetes-list-type: atomic
                      x-kubernetes-list-type: atomic
                namespaceSelector:
                  description: The namespaces to look for the Services in; the ServiceMonitor's own when empty.
                  type: object
                  properties:
                    any: {type: boolean}
                    matchNames:
                      type: array
                      items: {type: string}
                endpoints:
                  description: The ports of the selected Services to scrape.
                  type: array
                  minItems: 1
                  maxItems: 32
                  items:
                    type: object
                    x-kubernetes-validations:
                      - rule: "has(self.port) != has(self.targetPort)"
                        message: name the endpoint by exactly one of port and targetPort
                      - rule: "!has(self.basicAuth) || !has(self.authorization)"
                        message: basicAuth and authorization cannot both be set
                    properties:
                      port:
                        description: The Service port's name.
                        type: string
                        maxLength: 15
                      targetPort:
                        description: The pod's port, by name or number.
                        anyOf:
                          - type: integer
                          - type: string
                        x-kubernetes-int-or-string: true
                      path:
                        type: string
                        default: /metrics
                        pattern: ^/
                      scheme:
                        type: string
                        enum: [http, https, HTTP, HTTPS]
                      params:
                        type: object
                        additionalProperties:
                          type: array
                          items: {type: string}
                      interval:
                        description: How often to scrape; Prometheus's global interval when empty.
                        type: string
                        pattern: ^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$
                      scrapeTimeout:
                        type: string
                        pattern: ^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$
                      honorLabels: {type: boolean, default: false}
                      honorTimestamps: {type: boolean}
                      followRedirects: {type: boolean}
                      enableHttp2: {type: boolean}
                      tlsConfig:
                        type: object
                        properties:
                          serverName: {type: string}
                          insecureSkipVerify: {type: boolean}
                          ca:
                            type: object
                            properties:
                              configMap:
                                type: object
                                required: [key]
                                properties:
                                  name: {type: string, default: ""}
                                  key: {type: string}
                                  optional: {type: boolean}
                                x-kubernetes-map-type: atomic
                              secret:
                                type: object
                                required: [key]
                                properties:
                                  name: {type: string, default: ""}
                                  key: {type: string}
                                  optional: {type: boolean}
                                x-kubernetes-map-type: atomic
                      authorization:
                        type: object
                        properties:
                          type:
                            description: The scheme of the Authorization header; Bearer when empty.
                            type: string
                          credentials:
                            type: object
                            required: [key]
                            properties:
                              name: {type: string, default: ""}
                              key: {type: string}
                              optional: {type: boolean}
                            x-kubernetes-map-type: atomic
                      basicAuth:
                        type: object
                        properties:
                          username:
                            type: object
                            required: [key]
                            properties:
                              name: {type: string, default: ""}
                              key: {type: string}
                            x-kubernetes-map-type: atomic
                          password:
                            type: object
                            required: [key]
                            properties:
                              name: {type: string, default: ""}
                              key: {type: string}
                            x-kubernetes-map-type: atomic
                      relabelings:
RELABEL_CONFIGS
                      metricRelabelings:
RELABEL_CONFIGS
            status:
              type: object
              properties:
                conditions:
                  type: array
                  items:
                    type: object
                    required: [type, status]
                    properties:
                      type: {type: string}
                      status: {type: string, enum: ["True", "False", Unknown]}
                      reason: {type: string}
                      message: {type: string}
                      lastTransitionTime: {type: string, format: date-time}
                  x-kubernetes-list-type: map
                  x-kubernetes-list-map-keys: [type]
`

// relabelConfigs is the schema of relabelings and metricRelabelings, as
// crdTemplate indents it.
const relabelConfigs = `                        description: Relabeling rules, applied in order.
                        type: array
                        maxItems: 64
                        items:
                          type: object
                          x-kubernetes-validations:
                            - rule: "self.action != 'hashmod' && self.action != 'HashMod' || has(self.modulus)"
                              message: a hashmod action needs modulus
                          properties:
                            sourceLabels:
                              type: array
                              items:
                                type: string
                                pattern: ^[a-zA-Z_][a-zA-Z0-9_]*$
                            separator: {type: string}
                            targetLabel: {type: string}
                            regex: {type: string}
                            modulus: {type: integer, format: int64, minimum: 1}
                            replacement: {type: string}
                            action:
                              type: string
                              default: replace
                              enum: [replace, Replace, keep, Keep, drop, Drop, hashmod, HashMod, labelmap, LabelMap, labeldrop, LabelDrop, labelkeep, LabelKeep, lowercase, Lowercase, uppercase, Uppercase]
`

// BaseEdits are the fleet as it was before a pull request, file by file
// (what the base held, what the head holds): the pull request changes
// app-01's ConfigMap (a new hash: app-01 rolls in every tenant) and removes
// a pod annotation from app-03's Deployment (it rolls too). `krender diff`
// is measured on it: 2 workloads roll in each tenant.
var BaseEdits = []struct{ File, Head, Base string }{
	{filepath.Join(AppsDir, "app-01", "configmap.yaml"), "cache.ttl=300", "cache.ttl=600"},
	{filepath.Join(AppsDir, "app-03", "deployment.yaml"), "      labels:\n        app: app-03\n        tenant: ${TENANT_ID}\n    spec:",
		"      labels:\n        app: app-03\n        tenant: ${TENANT_ID}\n      annotations: {prometheus.io/scrape: \"true\"}\n    spec:"},
}

// BaseFiles are files (the fleet's, the head) as the base held them
// (BaseEdits); an error when an edit does not apply.
func BaseFiles(files map[string][]byte) (map[string][]byte, error) {
	base := make(map[string][]byte, len(files))
	for name, text := range files {
		base[name] = text
	}
	for _, e := range BaseEdits {
		if !strings.Contains(string(files[e.File]), e.Head) {
			return nil, fmt.Errorf("%s holds no %q", e.File, e.Head)
		}
		base[e.File] = []byte(strings.Replace(string(files[e.File]), e.Head, e.Base, 1))
	}
	return base, nil
}

// WriteFiles puts files under dir.
func WriteFiles(dir string, files map[string][]byte) error {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(dir, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			return err
		}
	}
	return nil
}
