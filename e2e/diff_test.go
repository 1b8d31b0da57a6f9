//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/krender/krender/action"
	"github.com/krender/krender/action/diff"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/lint/validator"
)

// The `krender diff` tier: each variant's base is applied to the cluster,
// then its head over it; what the controllers then did (a new ReplicaSet or
// ControllerRevision, a changed stored jobTemplate) or the API server
// refused is the cluster's verdict, and krender diff's must equal it.

// diffVariant is a base and a head of the same templates. Templates name
// their namespace ${NAMESPACE}; profile, when set, writes the profile of
// a side for the namespaces the test made (else one namespace, no tenants).
type diffVariant struct {
	name       string
	base, head string
	tenants    bool
	// want is the verdict expected of each object, by "Kind/name" (and
	// "@tenant" with tenants): the variant shows what it claims to.
	want map[string]string
	// kept is how many fields krender diff says the head leaves out and
	// the cluster keeps; the cluster must hold each value it names.
	kept int
	// noNamespace: the objects name no namespace, as a chart's manifests,
	// and kubectl applies them with -n.
	noNamespace bool
	// added: the objects of want are the head's alone; the cluster's
	// verdict is added, or refused.
	added bool
	// clusterScoped: the objects of want are in no namespace (each
	// variant names its own).
	clusterScoped bool
	// crd is a CustomResourceDefinition both sides give krender diff
	// (--crds) and the cluster serves before the base is applied; each
	// variant defines a kind of its own.
	crd string
}

const diffDeployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: "${NAMESPACE}", labels: {app: web}}
spec:
  replicas: 0
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: registry.invalid/krender/web:2.4.1
          env: [{name: A, value: "1"}, {name: B, value: "2"}]
          resources: {limits: {memory: 1024Mi, cpu: "0.5"}}
          ports: [{containerPort: 8080}]
`

const diffConfigured = `apiVersion: v1
kind: ConfigMap
metadata: {name: web-config, namespace: "${NAMESPACE}"}
data: {app.properties: "feature.checkout=off\n"}
---
apiVersion: v1
kind: Secret
metadata: {name: web-secret, namespace: "${NAMESPACE}"}
stringData: {token: base-token}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: "${NAMESPACE}"}
spec:
  replicas: 0
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: registry.invalid/krender/web:2.4.1
          env: [{name: GREETING, value: "${GREETING}"}]
          envFrom: [{secretRef: {name: web-secret}}]
          volumeMounts: [{name: config, mountPath: /etc/web/app.properties, subPath: app.properties}]
      volumes: [{name: config, configMap: {name: web-config}}]
`

func statefulSet(strategy string) string {
	return `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: "${NAMESPACE}"}
spec:
  replicas: 0
  serviceName: db
  updateStrategy: {type: ` + strategy + `}
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: "registry.invalid/krender/postgres:16.2"}]}
  volumeClaimTemplates:
    - metadata: {name: data}
      spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`
}

func daemonSet(strategy string) string {
	return `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: "${NAMESPACE}"}
spec:
  updateStrategy: {type: ` + strategy + `}
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: "registry.invalid/krender/agent:1.8.2"}]}
`
}

const diffCronJob = `apiVersion: batch/v1
kind: CronJob
metadata: {name: report, namespace: "${NAMESPACE}"}
spec:
  schedule: "0 3 * * *"
  suspend: true
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: report, image: "registry.invalid/krender/report:3.1.0", args: [--since, 24h]}]
`

const diffJob = `apiVersion: batch/v1
kind: Job
metadata: {name: migrate, namespace: "${NAMESPACE}"}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{name: migrate, image: "registry.invalid/krender/migrate:5"}]
`

const diffImmutable = `apiVersion: v1
kind: ConfigMap
metadata: {name: flags, namespace: "${NAMESPACE}"}
immutable: true
data: {level: info}
`

const diffPod = `apiVersion: v1
kind: Pod
metadata: {name: debug, namespace: "${NAMESPACE}"}
spec:
  containers: [{name: sh, image: "registry.invalid/krender/busybox:1.36", env: [{name: MODE, value: slow}]}]
`

const diffRoleBinding = `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: ci, namespace: "${NAMESPACE}"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{kind: ServiceAccount, name: ci, namespace: "${NAMESPACE}"}]
`

const diffService = `apiVersion: v1
kind: Service
metadata: {name: web, namespace: "${NAMESPACE}"}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`

// nodePortService spells out its clusterIP and nodePort (each variant its
// own: both are the cluster's, not the namespace's). Values written out lie in
// the allocators' static bands (the first 16 addresses of 10.0.0.0/24, ports
// 30000-30085), which the API server hands out only when the rest is full, so
// a Service another variant leaves to allocation never takes one first.
func nodePortService(clusterIP, nodePort string) string {
	return `apiVersion: v1
kind: Service
metadata: {name: web, namespace: "${NAMESPACE}"}
spec:
  type: NodePort
  clusterIP: ` + clusterIP + `
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: 8080, nodePort: ` + nodePort + `}]
`
}

const diffHeadless = `apiVersion: v1
kind: Service
metadata: {name: db, namespace: "${NAMESPACE}"}
spec:
  clusterIP: None
  selector: {app: db}
  ports: [{port: 5432}]
`

const diffLoadBalancer = `apiVersion: v1
kind: Service
metadata: {name: edge, namespace: "${NAMESPACE}"}
spec:
  type: LoadBalancer
  externalTrafficPolicy: Local
  healthCheckNodePort: 30014
  selector: {app: edge}
  ports: [{name: https, port: 443, targetPort: 8443, nodePort: 30015}]
`

const diffClaim = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: "${NAMESPACE}"}
spec:
  storageClassName: standard
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
`

const diffIngress = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: "${NAMESPACE}"}
spec:
  rules:
    - host: shop.example.com
      http:
        paths:
          - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
`

const diffBudget = `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: "${NAMESPACE}"}
spec: {minAvailable: 1, selector: {matchLabels: {app: web}}}
`

const diffAutoscaler = `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: "${NAMESPACE}"}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 10
  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}}]
`

const diffRole = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader, namespace: "${NAMESPACE}"}
rules: [{apiGroups: [""], resources: [configmaps], verbs: [get, list]}]
`

const diffNetworkPolicy = `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: web, namespace: "${NAMESPACE}"}
spec:
  podSelector: {matchLabels: {app: web}}
  ingress: [{ports: [{port: 8080}]}]
`

// diffIngressClass and diffWebhook are cluster-scoped: each variant
// names its own. The webhook intercepts a resource no API serves, so it
// never stands in another variant's way.
func diffIngressClass(name string) string {
	return `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: ` + name + `}
spec: {controller: k8s.io/ingress-nginx}
`
}

func diffWebhook(name string) string {
	return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: ` + name + `}
webhooks:
  - name: validate.example.com
    clientConfig: {url: "https://policy.example.com/validate"}
    rules: [{apiGroups: [example.invalid], apiVersions: [v1], operations: [CREATE], resources: [widgets]}]
    failurePolicy: Ignore
    sideEffects: None
    admissionReviewVersions: [v1]
`
}

// diffCRD defines kind in the group diff.krender.test: a required engine
// of three, and replicas of at least one.
func diffCRD(kind string) string {
	plural := strings.ToLower(kind) + "s"
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ` + plural + `.diff.krender.test}
spec:
  group: diff.krender.test
  names: {kind: ` + kind + `, plural: ` + plural + `}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              required: [engine]
              properties:
                engine: {type: string, enum: [postgres, mysql, valkey]}
                replicas: {type: integer, minimum: 1}
`
}

func diffCustom(kind, spec string) string {
	return "apiVersion: diff.krender.test/v1\nkind: " + kind + "\nmetadata: {name: orders, namespace: \"${NAMESPACE}\"}\nspec: " + spec + "\n"
}

func swap(s, old, new string) string {
	if !strings.Contains(s, old) {
		panic(fmt.Sprintf("%q not in the template", old))
	}
	return strings.Replace(s, old, new, 1)
}

var diffVariants = []diffVariant{
	{name: "no-namespace", base: withoutNamespace(diffDeployment + "---\n" + diffService), head: withoutNamespace(swap(diffDeployment, "web:2.4.1", "web:2.5.0") + "---\n" + swap(diffService, "port: 80,", "port: 81,")),
		want: map[string]string{"Deployment/web": diff.Rolls, "Service/web": diff.None}, noNamespace: true},
	{name: "image", base: diffDeployment, head: swap(diffDeployment, "web:2.4.1", "web:2.5.0"), want: map[string]string{"Deployment/web": diff.Rolls}},
	{name: "pull-policy-default", base: diffDeployment, head: swap(diffDeployment, "          env:", "          imagePullPolicy: IfNotPresent\n          env:"), want: map[string]string{"Deployment/web": diff.None}},
	{name: "protocol-default", base: diffDeployment, head: swap(diffDeployment, "{containerPort: 8080}", "{containerPort: 8080, protocol: TCP}"), want: map[string]string{"Deployment/web": diff.None}},
	{name: "termination-message-default", base: diffDeployment, head: swap(diffDeployment, "          env:", "          terminationMessagePath: /dev/termination-log\n          env:"), want: map[string]string{"Deployment/web": diff.None}},
	{name: "pod-defaults", base: diffDeployment, head: swap(diffDeployment, "    spec:\n      containers:", "    spec:\n      restartPolicy: Always\n      dnsPolicy: ClusterFirst\n      containers:"), want: map[string]string{"Deployment/web": diff.None}},
	{name: "memory-spelling", base: diffDeployment, head: swap(diffDeployment, "memory: 1024Mi", "memory: 1Gi"), want: map[string]string{"Deployment/web": diff.None}},
	{name: "cpu-spelling", base: diffDeployment, head: swap(diffDeployment, `cpu: "0.5"`, "cpu: 500m"), want: map[string]string{"Deployment/web": diff.None}},
	{name: "env-reordered", base: diffDeployment, head: swap(diffDeployment, `[{name: A, value: "1"}, {name: B, value: "2"}]`, `[{name: B, value: "2"}, {name: A, value: "1"}]`), want: map[string]string{"Deployment/web": diff.Rolls}},
	{name: "replicas", base: diffDeployment, head: swap(diffDeployment, "replicas: 0", "replicas: 2"), want: map[string]string{"Deployment/web": diff.None}},
	{name: "own-labels", base: diffDeployment, head: swap(diffDeployment, "labels: {app: web}}", "labels: {app: web, team: storefront}}"), want: map[string]string{"Deployment/web": diff.None}},
	{name: "min-ready", base: diffDeployment, head: swap(diffDeployment, "  replicas: 0", "  minReadySeconds: 10\n  replicas: 0"), want: map[string]string{"Deployment/web": diff.None}},
	{name: "pod-annotation", base: diffDeployment, head: swap(diffDeployment, "    metadata: {labels: {app: web}}", "    metadata: {labels: {app: web}, annotations: {prometheus.io/scrape: \"true\"}}"), want: map[string]string{"Deployment/web": diff.Rolls}},
	{name: "unknown-field", base: diffDeployment, head: swap(diffDeployment, "          env:", "          imagePullPolcy: Always\n          env:"), want: map[string]string{"Deployment/web": diff.Refused}},
	{name: "wrong-type", base: diffDeployment, head: swap(diffDeployment, `{name: B, value: "2"}`, "{name: B, value: 2}"), want: map[string]string{"Deployment/web": diff.Refused}},
	{name: "defaults-kept", base: swap(diffDeployment, "web:2.4.1", "web:latest"), head: swap(diffDeployment, "memory: 1024Mi", "memory: 2Gi"), want: map[string]string{"Deployment/web": diff.Rolls}},
	{name: "pod-image-latest", base: swap(diffPod, "busybox:1.36", "busybox:latest"), head: diffPod, want: map[string]string{"Pod/debug": diff.Rolls}},
	{name: "selector", base: diffDeployment, head: strings.ReplaceAll(diffDeployment, "{app: web}}", "{app: web, v: \"2\"}}"), want: map[string]string{"Deployment/web": diff.Refused}},
	{name: "hashed-configmap", base: diffConfigured, head: swap(diffConfigured, "checkout=off", "checkout=on"), want: map[string]string{"Deployment/web": diff.Rolls}},
	{name: "hashed-secret", base: diffConfigured, head: swap(diffConfigured, "token: base-token", "token: head-token"), want: map[string]string{"Deployment/web": diff.Rolls}},
	{name: "renamed-configmap", base: diffConfigured, head: strings.ReplaceAll(diffConfigured, "web-config", "web-settings"), want: map[string]string{"Deployment/web": diff.Rolls}},
	{name: "one-tenant", tenants: true, base: diffConfigured, head: diffConfigured, want: map[string]string{"Deployment/web@a": diff.None, "Deployment/web@b": diff.Rolls}},
	{name: "statefulset-rolling", base: statefulSet("RollingUpdate"), head: swap(statefulSet("RollingUpdate"), "16.2", "16.4"), want: map[string]string{"StatefulSet/db": diff.Rolls}},
	{name: "statefulset-on-delete", base: statefulSet("OnDelete"), head: swap(statefulSet("OnDelete"), "16.2", "16.4"), want: map[string]string{"StatefulSet/db": diff.OnDelete}},
	{name: "statefulset-storage", base: statefulSet("RollingUpdate"), head: swap(statefulSet("RollingUpdate"), "storage: 1Gi", "storage: 2Gi"), want: map[string]string{"StatefulSet/db": diff.Refused}},
	{name: "daemonset-rolling", base: daemonSet("RollingUpdate"), head: swap(daemonSet("RollingUpdate"), "1.8.2", "1.9.0"), want: map[string]string{"DaemonSet/agent": diff.Rolls}},
	{name: "daemonset-on-delete", base: daemonSet("OnDelete"), head: swap(daemonSet("OnDelete"), "1.8.2", "1.9.0"), want: map[string]string{"DaemonSet/agent": diff.OnDelete}},
	{name: "cronjob-template", base: diffCronJob, head: swap(diffCronJob, "24h", "48h"), want: map[string]string{"CronJob/report": diff.NextRun}},
	{name: "cronjob-schedule", base: diffCronJob, head: swap(diffCronJob, "0 3 * * *", "0 4 * * *"), want: map[string]string{"CronJob/report": diff.None}},
	{name: "job-template", base: diffJob, head: swap(diffJob, "migrate:5", "migrate:6"), want: map[string]string{"Job/migrate": diff.Refused}},
	{name: "pod-env", base: diffPod, head: swap(diffPod, "value: slow", "value: fast"), want: map[string]string{"Pod/debug": diff.Refused}},
	{name: "service-port", base: diffService, head: swap(diffService, "targetPort: 8080", "targetPort: 8081"), want: map[string]string{"Service/web": diff.None}},
	{name: "service-allocated-dropped", base: nodePortService("10.0.0.12", "30012"), head: swap(swap(nodePortService("10.0.0.12", "30012"), "  clusterIP: 10.0.0.12\n", ""), "targetPort: 8080, nodePort: 30012", "targetPort: 8081"), want: map[string]string{"Service/web": diff.None}, kept: 2},
	{name: "service-cluster-ips-dropped", base: swap(nodePortService("10.0.0.16", "30016"), "  selector:", "  clusterIPs: [10.0.0.16]\n  selector:"), head: nodePortService("10.0.0.16", "30016"), want: map[string]string{"Service/web": diff.None}, kept: 1},
	{name: "service-headless-dropped", base: diffHeadless, head: swap(diffHeadless, "  clusterIP: None\n", ""), want: map[string]string{"Service/db": diff.None}, kept: 1},
	{name: "service-headless-port", base: diffHeadless, head: swap(diffHeadless, "{port: 5432}", "{port: 5432, targetPort: 5433}"), want: map[string]string{"Service/db": diff.None}},
	{name: "service-health-check-dropped", base: diffLoadBalancer, head: swap(swap(diffLoadBalancer, "  healthCheckNodePort: 30014\n", ""), "targetPort: 8443, nodePort: 30015", "targetPort: 9443"), want: map[string]string{"Service/edge": diff.None}, kept: 2},
	{name: "service-health-check-allocated", base: swap(swap(diffLoadBalancer, "  healthCheckNodePort: 30014\n", ""), ", nodePort: 30015", ""), head: swap(swap(diffLoadBalancer, "  healthCheckNodePort: 30014\n", ""), "targetPort: 8443, nodePort: 30015", "targetPort: 9443"), want: map[string]string{"Service/edge": diff.None}},
	{name: "service-made-load-balancer", base: diffService, head: swap(diffService, "spec:\n", "spec:\n  type: LoadBalancer\n  externalTrafficPolicy: Local\n"), want: map[string]string{"Service/web": diff.None}},
	{name: "service-cluster-ip-changed", base: nodePortService("10.0.0.13", "30013"), head: swap(nodePortService("10.0.0.13", "30013"), "clusterIP: 10.0.0.13", "clusterIP: 10.0.0.14"), want: map[string]string{"Service/web": diff.Refused}},
	{name: "claim-class", base: diffClaim, head: swap(diffClaim, "storageClassName: standard", "storageClassName: fast"), want: map[string]string{"PersistentVolumeClaim/data": diff.Refused}},
	{name: "rolebinding-role", base: diffRoleBinding, head: swap(diffRoleBinding, "name: view", "name: edit"), want: map[string]string{"RoleBinding/ci": diff.Refused}},
	{name: "rolebinding-subjects", base: diffRoleBinding, head: swap(diffRoleBinding, "{kind: ServiceAccount, name: ci,", "{kind: ServiceAccount, name: deploy,"), want: map[string]string{"RoleBinding/ci": diff.None}},
	{name: "privileged-image", base: swap(daemonSet("RollingUpdate"), `image: "registry.invalid/krender/agent:1.8.2"`, `image: "registry.invalid/krender/agent:1.8.2", securityContext: {privileged: true}`),
		head: swap(daemonSet("RollingUpdate"), `image: "registry.invalid/krender/agent:1.8.2"`, `image: "registry.invalid/krender/agent:1.9.0", securityContext: {privileged: true}`), want: map[string]string{"DaemonSet/agent": diff.Rolls}},
	{name: "added", added: true, base: diffService, head: diffService + "---\n" + diffDeployment + "---\n" + diffHeadless, want: map[string]string{"Deployment/web": diff.Added, "Service/db": diff.Added}},
	{name: "added-selector", added: true, base: diffService, head: diffService + "---\n" + swap(diffDeployment, "    metadata: {labels: {app: web}}", "    metadata: {labels: {app: webb}}"), want: map[string]string{"Deployment/web": diff.Refused}},
	{name: "added-unknown-field", added: true, base: diffService, head: diffService + "---\n" + swap(diffDeployment, "          env:", "          imagePullPolcy: Always\n          env:"), want: map[string]string{"Deployment/web": diff.Refused}},
	{name: "added-port", added: true, base: diffService, head: diffService + "---\n" + swap(diffDeployment, "{containerPort: 8080}", "{containerPort: 80800}"), want: map[string]string{"Deployment/web": diff.Refused}},
	{name: "ingress-backend", base: diffIngress, head: swap(diffIngress, "number: 80", "number: 8080"), want: map[string]string{"Ingress/web": diff.None}},
	{name: "ingress-path-type", base: diffIngress, head: diffIngress + "          - {path: /api, backend: {service: {name: api, port: {number: 80}}}}\n", want: map[string]string{"Ingress/web": diff.Refused}},
	{name: "added-ingress-path-type", added: true, base: diffService, head: diffService + "---\n" + swap(diffIngress, "pathType: Prefix, ", ""), want: map[string]string{"Ingress/web": diff.Refused}},
	{name: "budget-both-bounds", base: diffBudget, head: swap(diffBudget, "minAvailable: 1,", "minAvailable: 1, maxUnavailable: 1,"), want: map[string]string{"PodDisruptionBudget/web": diff.Refused}},
	{name: "autoscaler-bounds", base: diffAutoscaler, head: swap(diffAutoscaler, "maxReplicas: 10", "maxReplicas: 1"), want: map[string]string{"HorizontalPodAutoscaler/web": diff.Refused}},
	{name: "autoscaler-maximum", base: diffAutoscaler, head: swap(diffAutoscaler, "maxReplicas: 10", "maxReplicas: 20"), want: map[string]string{"HorizontalPodAutoscaler/web": diff.None}},
	{name: "role-without-verbs", base: diffRole, head: swap(diffRole, ", verbs: [get, list]", ""), want: map[string]string{"Role/reader": diff.Refused}},
	{name: "added-network-policy-port", added: true, base: diffService, head: diffService + "---\n" + swap(diffNetworkPolicy, "port: 8080", "port: 80800"), want: map[string]string{"NetworkPolicy/web": diff.Refused}},
	{name: "ingress-class-controller", clusterScoped: true, base: diffIngressClass("krender-diff-class"), head: swap(diffIngressClass("krender-diff-class"), "k8s.io/ingress-nginx", "traefik.io/ingress-controller"),
		want: map[string]string{"IngressClass/krender-diff-class": diff.Refused}},
	{name: "webhook-side-effects", clusterScoped: true, base: diffWebhook("krender-diff-webhook"), head: swap(diffWebhook("krender-diff-webhook"), "    sideEffects: None\n", ""),
		want: map[string]string{"ValidatingWebhookConfiguration/krender-diff-webhook": diff.Refused}},
	{name: "added-removed-api", added: true, base: diffService, head: diffService + "---\n" + swap(diffBudget, "policy/v1", "policy/v1beta1"), want: map[string]string{"PodDisruptionBudget/web": diff.Refused}},
	{name: "added-custom", added: true, crd: diffCRD("Ledger"), base: diffService, head: diffService + "---\n" + diffCustom("Ledger", "{engine: postgres, replicas: 2}"),
		want: map[string]string{"Ledger/orders": diff.Added}},
	{name: "added-custom-invalid", added: true, crd: diffCRD("Journal"), base: diffService, head: diffService + "---\n" + diffCustom("Journal", "{replicas: 0}"),
		want: map[string]string{"Journal/orders": diff.Refused}},
	{name: "added-custom-unknown-field", added: true, crd: diffCRD("Archive"), base: diffService, head: diffService + "---\n" + diffCustom("Archive", "{engine: mysql, replica: 2}"),
		want: map[string]string{"Archive/orders": diff.Refused}},
	{name: "added-with-its-crd", added: true, base: diffService, head: diffService + "---\n" + diffCRD("Register") + "---\n" + diffCustom("Register", "{engine: postgres}"),
		want: map[string]string{"Register/orders": diff.Refused}},
	{name: "written-twice", base: diffDeployment, head: diffDeployment + "---\n" + swap(diffDeployment, "web:2.4.1", "web:2.5.0"), want: map[string]string{"Deployment/web": diff.Rolls}},
	{name: "immutable-configmap", base: diffImmutable, head: swap(diffImmutable, "level: info", "level: debug"), want: map[string]string{"ConfigMap/flags": diff.Refused}},
}

// TestDiffVerdictsMatchTheCluster applies each variant's base, then its
// head, and holds krender diff's verdicts to what the cluster did.
func TestDiffVerdictsMatchTheCluster(t *testing.T) {
	if len(diffVariants) < 20 {
		t.Fatalf("%d variants: the tier holds krender diff to at least 20", len(diffVariants))
	}
	seen := map[string]bool{}
	for _, v := range diffVariants {
		for _, w := range v.want {
			seen[w] = true
		}
	}
	for _, w := range []string{diff.Rolls, diff.OnDelete, diff.NextRun, diff.None, diff.Refused} {
		if !seen[w] {
			t.Errorf("no variant shows %s", w)
		}
	}
	for _, v := range diffVariants {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			runDiffVariant(t, v)
		})
	}
}

func runDiffVariant(t *testing.T, v diffVariant) {
	ns := newNamespace(t, "krender-diff-"+v.name)
	dir := t.TempDir()
	tenants := map[string]string{"": ns} // tenant → namespace
	if v.tenants {
		tenants = map[string]string{"a": ns, "b": newNamespace(t, "krender-diff-"+v.name+"-b")}
	}
	for side, text := range map[string]string{"base": v.base, "head": v.head} {
		writeFile(t, filepath.Join(dir, side, "templates", "objects.yaml"), text)
		writeFile(t, filepath.Join(dir, side, "profile.yaml"), diffProfile(tenants, side == "head"))
	}
	base, head := filesys.Dir(filepath.Join(dir, "base")), filesys.Dir(filepath.Join(dir, "head"))
	opts := action.Options{Profile: "profile.yaml", Paths: []string{"templates"}}
	diffOpts := action.Options{Paths: []string{"templates"}}
	if v.crd != "" {
		serveCRD(t, dir, v.crd)
		diffOpts.CRDs = []string{"crds"}
	}

	d := &diff.Diff{Options: diffOpts, Profiles: []string{"profile.yaml"},
		Head: head, Base: base, BaseName: "base", Validator: validator.APIServer{}}
	res, err := d.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}

	apply := []string{"apply", "-f", "-"}
	if v.noNamespace {
		apply = []string{"apply", "-n", ns, "-f", "-"}
	}
	kubectlOK(t, renderTo(t, base, opts), apply...)
	before := map[string]clusterState{}
	for key, w := range workloadsOf(v, tenants) {
		if !v.added {
			before[key] = readState(t, w, true)
		}
	}
	out, _ := kubectl(t, renderTo(t, head, opts), apply...)
	refused, applied := refusals(out), appliedObjects(out)
	for key, w := range workloadsOf(v, tenants) {
		cluster := diff.None
		switch {
		case refused[w.kind+"/"+w.name] || !applied[strings.ToLower(w.kind)+"/"+w.name]:
			cluster = diff.Refused
		case v.added:
			cluster = diff.Added
		default:
			cluster = before[key].verdict(readState(t, w, false))
		}
		krender, named := diff.None, w.ns
		if v.noNamespace || v.clusterScoped {
			named = ""
		}
		for _, c := range res.Changes {
			if c.Kind == w.kind && c.Name == w.name && c.Namespace == named {
				krender = c.Verdict()
			}
		}
		if krender != cluster || cluster != v.want[key] {
			t.Errorf("%s: krender diff says %s, the cluster did %s, the variant is meant to show %s\napply said:\n%s", key, krender, cluster, v.want[key], out)
		}
	}
	if n := checkKept(t, res.Changes); n != v.kept {
		t.Errorf("krender diff says the cluster keeps %d fields the head leaves out, the variant is meant to show %d", n, v.kept)
	}
}

// serveCRD writes crd into both sides' crds/ and has the cluster serve it.
func serveCRD(t *testing.T, dir, crd string) {
	t.Helper()
	for _, side := range []string{"base", "head"} {
		writeFile(t, filepath.Join(dir, side, "crds", "crd.yaml"), crd)
	}
	file := filepath.Join(dir, "base", "crds", "crd.yaml")
	kubectlOK(t, "", "apply", "-f", file)
	kubectlOK(t, "", "wait", "--for=condition=Established", "--timeout=60s", "-f", file)
}

var keptReason = regexp.MustCompile(`^(\S+): left out; the cluster keeps (.+)$`)

// checkKept reads back each field krender diff says the cluster keeps
// (spec.clusterIP, spec.ports[http].nodePort) from the object as the API
// server now stores it, and returns how many there were.
func checkKept(t *testing.T, changes []diff.Change) int {
	t.Helper()
	n := 0
	for _, c := range changes {
		for _, r := range c.Reasons {
			m := keptReason.FindStringSubmatch(r)
			if m == nil {
				continue
			}
			n++
			var stored any
			kubectlJSON(t, &stored, "get", "-n", c.Namespace, strings.ToLower(c.Kind), c.Name)
			if got := fmt.Sprint(fieldAt(stored, m[1])); got != m[2] {
				t.Errorf("%s %s: krender diff says %q, the cluster holds %s", c.Kind, c.Name, r, got)
			}
		}
	}
	return n
}

// fieldAt is v's value at a diff's path: dotted keys, and [name] (a list
// item by its name) or [index].
func fieldAt(v any, path string) any {
	for _, seg := range strings.Split(path, ".") {
		key, item, _ := strings.Cut(strings.TrimSuffix(seg, "]"), "[")
		m, _ := v.(map[string]any)
		v = m[key]
		if item == "" {
			continue
		}
		l, _ := v.([]any)
		v = nil
		for i, it := range l {
			if m, _ := it.(map[string]any); m["name"] == item || fmt.Sprint(i) == item {
				v = it
				break
			}
		}
	}
	return v
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// withoutNamespace is templates that name no namespace.
func withoutNamespace(templates string) string {
	out := strings.ReplaceAll(templates, `, namespace: "${NAMESPACE}"`, "")
	if strings.Contains(out, "namespace") || out == templates {
		panic(fmt.Sprintf("a namespace is left in, or none was there: %q", out))
	}
	return out
}

// diffProfile is a side's profile: one namespace, or tenants a and b, b's
// GREETING changed at the head.
func diffProfile(tenants map[string]string, head bool) string {
	if ns, ok := tenants[""]; ok {
		return fmt.Sprintf("vars: {NAMESPACE: %s, GREETING: hello}\n", ns)
	}
	greeting := "hello"
	if head {
		greeting = "bonjour"
	}
	return fmt.Sprintf("tenants:\n  a:\n    vars: {NAMESPACE: %s, GREETING: hello}\n  b:\n    vars: {NAMESPACE: %s, GREETING: %s}\n", tenants["a"], tenants["b"], greeting)
}

// diffWorkload is one object a variant judges, in its namespace.
type diffWorkload struct{ kind, name, ns string }

func workloadsOf(v diffVariant, tenants map[string]string) map[string]diffWorkload {
	out := map[string]diffWorkload{}
	for key := range v.want {
		id, tenant, _ := strings.Cut(key, "@")
		kind, name, _ := strings.Cut(id, "/")
		out[key] = diffWorkload{kind: kind, name: name, ns: tenants[tenant]}
	}
	return out
}

var invalid = regexp.MustCompile(`The (\w+) "([^"]+)" is invalid`)

// refusals are the objects kubectl apply's output says the API server
// refused, as "Kind/name": each variant applies to namespaces of its own.
func refusals(out string) map[string]bool {
	m := map[string]bool{}
	for _, s := range invalid.FindAllStringSubmatch(out, -1) {
		m[s[1]+"/"+s[2]] = true
	}
	return m
}

var appliedLine = regexp.MustCompile(`(?m)^([a-z]+)(?:\.[\w.]+)?/(\S+) (?:created|configured|unchanged)$`)

// appliedObjects are the objects kubectl apply's output says it applied,
// as "kind/name" in lower case: one it refused at decoding ("The request
// is invalid: patch: ... strict decoding error: ...") is named nowhere
// else.
func appliedObjects(out string) map[string]bool {
	m := map[string]bool{}
	for _, s := range appliedLine.FindAllStringSubmatch(out, -1) {
		m[s[1]+"/"+s[2]] = true
	}
	return m
}

// clusterState is what a workload's controller made of it: its revisions
// (ReplicaSets, ControllerRevisions) or a CronJob's stored jobTemplate.
type clusterState struct {
	kind      string
	revisions []string
	template  string
	onDelete  bool
}

func (before clusterState) verdict(after clusterState) string {
	switch before.kind {
	case "CronJob":
		if after.template != before.template {
			return diff.NextRun
		}
		return diff.None
	case "Pod": // an accepted change to its spec (an image) restarts the container
		if after.template != before.template {
			return diff.Rolls
		}
		return diff.None
	case "Job", "ConfigMap", "Service", "PersistentVolumeClaim":
		return diff.None
	}
	for _, r := range after.revisions {
		if !slices.Contains(before.revisions, r) {
			if after.onDelete {
				return diff.OnDelete
			}
			return diff.Rolls
		}
	}
	return diff.None
}

// readState waits for the workload's controller to have seen its latest
// generation (and, first, made its first revision), then reads it.
func readState(t *testing.T, w diffWorkload, first bool) clusterState {
	t.Helper()
	s := clusterState{kind: w.kind}
	resource := map[string]string{"Deployment": "replicasets", "StatefulSet": "controllerrevisions", "DaemonSet": "controllerrevisions"}[w.kind]
	if w.kind == "Pod" {
		var p struct {
			Spec any `json:"spec"`
		}
		kubectlJSON(t, &p, "get", "-n", w.ns, "pod", w.name)
		s.template = fmt.Sprint(p.Spec)
		return s
	}
	if w.kind == "CronJob" {
		var cj struct {
			Spec struct {
				JobTemplate any `json:"jobTemplate"`
			} `json:"spec"`
		}
		kubectlJSON(t, &cj, "get", "-n", w.ns, "cronjob", w.name)
		s.template = fmt.Sprint(cj.Spec.JobTemplate)
		return s
	}
	if resource == "" {
		return s
	}
	waitUntil(t, w.kind+" "+w.name+"'s controller sees its generation", func() (bool, string) {
		var o kobj
		kubectlJSON(t, &o, "get", "-n", w.ns, strings.ToLower(w.kind), w.name)
		s.revisions = s.revisions[:0]
		for _, r := range listObjects(t, w.ns, resource) {
			for _, ref := range r.Metadata.OwnerReferences {
				if ref.Kind == w.kind && ref.Name == w.name {
					s.revisions = append(s.revisions, r.Metadata.Name)
				}
			}
		}
		var spec struct {
			UpdateStrategy struct {
				Type string `json:"type"`
			} `json:"updateStrategy"`
		}
		if err := json.Unmarshal(o.Spec, &spec); err != nil {
			t.Fatal(err)
		}
		s.onDelete = spec.UpdateStrategy.Type == "OnDelete"
		return o.Status.ObservedGeneration >= o.Metadata.Generation && (!first || len(s.revisions) > 0),
			fmt.Sprintf("generation %d, observed %d, %d revisions", o.Metadata.Generation, o.Status.ObservedGeneration, len(s.revisions))
	})
	return s
}
