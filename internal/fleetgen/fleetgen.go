// Package fleetgen writes a synthetic multi-tenant fleet: apps (a Deployment,
// a Service and a ConfigMap each) rendered for many tenants, with the EFS
// wrapper fragment injected and ConfigMaps hashed. krender's benchmarks and
// its parallel-rendering tests use it so that both see a realistic fleet.
package fleetgen

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
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
	}
	return files
}

// Write puts the fleet under dir.
func (f Fleet) Write(dir string) error {
	files := f.Files()
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
