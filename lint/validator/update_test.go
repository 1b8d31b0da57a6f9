package validator

import (
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/krender/krender/model/manifest"
)

func object(t *testing.T, text string) *manifest.Object {
	t.Helper()
	objs, err := manifest.Parse(manifest.NewSource("x.yaml", []byte(text)))
	if err != nil || len(objs) != 1 {
		t.Fatalf("parse: %v (%d objects)", err, len(objs))
	}
	return objs[0]
}

const web = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: registry.example.com/web:2.4.1
          env: [{name: A, value: "1"}, {name: B, value: "2"}]
          resources: {limits: {memory: 1024Mi, cpu: "0.5"}}
          ports: [{containerPort: 8080}]
`

// TestUpdateAsTheAPIServerStores: defaults written out and quantities
// respelled are stored the same; a reordered env is not; an immutable
// field changed is refused with the API server's words.
func TestUpdateAsTheAPIServerStores(t *testing.T) {
	for _, c := range []struct {
		name, from, to string
		template       bool
		refused        string
	}{
		{"defaults", "ports: [{containerPort: 8080}]", "ports: [{containerPort: 8080, protocol: TCP}]\n          imagePullPolicy: IfNotPresent\n          terminationMessagePath: /dev/termination-log", false, ""},
		{"pod defaults", "    spec:\n      containers:", "    spec:\n      restartPolicy: Always\n      dnsPolicy: ClusterFirst\n      containers:", false, ""},
		{"quantities", `{memory: 1024Mi, cpu: "0.5"}`, `{memory: 1Gi, cpu: 500m}`, false, ""},
		{"env order", `[{name: A, value: "1"}, {name: B, value: "2"}]`, `[{name: B, value: "2"}, {name: A, value: "1"}]`, true, ""},
		{"image", "web:2.4.1", "web:2.5.0", true, ""},
		{"selector", "selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}", "selector: {matchLabels: {app: web, v: \"2\"}}\n  template:\n    metadata: {labels: {app: web, v: \"2\"}}", true, "spec.selector"},
	} {
		// An Argo Rollout's template is compared as its controller
		// compares it, defaulted as the API server defaults a pod
		// template; its CRD, not the API server's code, judges the rest.
		rollout := strings.Replace(web, "apiVersion: apps/v1\nkind: Deployment", "apiVersion: argoproj.io/v1alpha1\nkind: Rollout", 1)
		for _, k := range []struct{ kind, text, refused string }{{"Deployment", web, c.refused}, {"Rollout", rollout, ""}} {
			t.Run(k.kind+"/"+c.name, func(t *testing.T) {
				if !strings.Contains(k.text, c.from) || k.text == web && k.kind == "Rollout" {
					t.Fatalf("%q is not in the %s", c.from, k.kind)
				}
				u, err := APIServer{}.Update(object(t, k.text), object(t, strings.Replace(k.text, c.from, c.to, 1)))
				if err != nil {
					t.Fatal(err)
				}
				if !u.Known || u.Template != c.template {
					t.Errorf("Known %v, Template %v; want the template to differ: %v", u.Known, u.Template, c.template)
				}
				if k.refused == "" && len(u.Refused) > 0 || k.refused != "" && (len(u.Refused) == 0 || u.Refused[0].Path != k.refused || !strings.Contains(u.Refused[0].Msg, "field is immutable")) {
					t.Errorf("refused %+v, want %q", u.Refused, k.refused)
				}
			})
		}
	}
}

// TestUpdateRefusals: the API server's update validation, kind by kind.
// Objects of the kinds judged by the registry alone, as a chart ships them.
const (
	ingressClass = "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: public}\nspec: {controller: k8s.io/ingress-nginx}\n"
	csiDriver    = "apiVersion: storage.k8s.io/v1\nkind: CSIDriver\nmetadata: {name: ebs.csi.aws.com}\nspec: {attachRequired: true, podInfoOnMount: false}\n"
	ingressShop  = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: shop}
spec:
  ingressClassName: public
  rules:
    - host: shop.example.com
      http:
        paths:
          - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
`
	budget      = "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web, namespace: shop}\nspec: {minAvailable: 1, selector: {matchLabels: {app: web}}}\n"
	autoscaler  = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: shop}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 2\n  maxReplicas: 10\n  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}}]\n"
	readerRole  = "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: reader, namespace: shop}\nrules: [{apiGroups: [\"\"], resources: [configmaps], verbs: [get, list]}]\n"
	webhook     = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: policy}\nwebhooks:\n  - name: validate.policy.example.com\n    clientConfig: {service: {name: policy, namespace: shop, path: /validate}}\n    rules: [{apiGroups: [\"\"], apiVersions: [v1], operations: [CREATE], resources: [pods]}]\n    sideEffects: None\n    admissionReviewVersions: [v1]\n    timeoutSeconds: 5\n"
	netpol      = "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: web, namespace: shop}\nspec:\n  podSelector: {matchLabels: {app: web}}\n  ingress: [{ports: [{port: 8080}]}]\n"
	namespaceNS = "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, labels: {team: a}}\n"
	quota       = "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q, namespace: shop}\nspec: {hard: {pods: \"10\"}}\n"
	limits      = "apiVersion: v1\nkind: LimitRange\nmetadata: {name: l, namespace: shop}\nspec: {limits: [{type: Container, default: {memory: 256Mi}}]}\n"
)

func TestUpdateRefusals(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: shop}\nimmutable: true\ndata: {k: V}\n"
	sts := `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: shop}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: postgres:16}]}
  volumeClaimTemplates:
    - metadata: {name: data}
      spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`
	job := "apiVersion: batch/v1\nkind: Job\nmetadata: {name: m, namespace: shop}\nspec:\n  template:\n    spec: {restartPolicy: Never, containers: [{name: m, image: migrate:5}]}\n"
	rb := "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: ci, namespace: shop}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}\nsubjects: [{kind: ServiceAccount, name: ci, namespace: shop}]\n"
	crb := strings.Replace(strings.Replace(rb, "kind: RoleBinding", "kind: ClusterRoleBinding", 1), "{name: ci, namespace: shop}", "{name: ci}", 1)
	sc := "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: fast}\nprovisioner: ebs.csi.aws.com\nparameters: {type: gp3}\nallowVolumeExpansion: false\n"
	pc := "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\ndescription: batch\n"
	for _, c := range []struct{ name, old, new, path, msg string }{
		{"immutable ConfigMap", cm, strings.Replace(cm, "k: V", "k: W", 1), "data", "field is immutable"},
		{"RoleBinding roleRef", rb, strings.Replace(rb, "name: view", "name: edit", 1), "roleRef", "cannot change roleRef"},
		{"ClusterRoleBinding roleRef", crb, strings.Replace(crb, "name: view", "name: edit", 1), "roleRef", "cannot change roleRef"},
		{"StorageClass parameters", sc, strings.Replace(sc, "type: gp3", "type: io2", 1), "parameters", "updates to parameters are forbidden"},
		{"PriorityClass value", pc, strings.Replace(pc, "value: 1000", "value: 2000", 1), "value", "may not be changed in an update"},
		{"StatefulSet storage", sts, strings.Replace(sts, "storage: 1Gi", "storage: 2Gi", 1), "spec", "Forbidden"},
		{"Job template", job, strings.Replace(job, "migrate:5", "migrate:6", 1), "spec.template", "field is immutable"},
		{"IngressClass controller", ingressClass, strings.Replace(ingressClass, "k8s.io/ingress-nginx", "traefik.io/ingress-controller", 1), "spec.controller", "field is immutable"},
		{"CSIDriver attachRequired", csiDriver, strings.Replace(csiDriver, "attachRequired: true", "attachRequired: false", 1), "spec.attachedRequired", "field is immutable"},
		{"an Ingress path with no pathType", ingressShop, ingressShop + "          - {path: /api, backend: {service: {name: api, port: {number: 80}}}}\n", "spec.rules[0].http.paths[1].pathType", "Required value"},
		{"a budget with both bounds", budget, strings.Replace(budget, "minAvailable: 1,", "minAvailable: 1, maxUnavailable: 1,", 1), "spec", "minAvailable and maxUnavailable cannot be both set"},
		{"an autoscaler's bounds crossed", autoscaler, strings.Replace(autoscaler, "maxReplicas: 10", "maxReplicas: 1", 1), "spec.maxReplicas", "must be greater than or equal to `minReplicas`"},
		{"a Role's rule with no verbs", readerRole, strings.Replace(readerRole, ", verbs: [get, list]", "", 1), "rules[0].verbs", "Required value"},
		{"a webhook with no sideEffects", webhook, strings.Replace(webhook, "    sideEffects: None\n", "", 1), "webhooks[0].sideEffects", "Required value"},
	} {
		t.Run(c.name, func(t *testing.T) {
			u, err := APIServer{}.Update(object(t, c.old), object(t, c.new))
			if err != nil {
				t.Fatal(err)
			}
			if len(u.Refused) == 0 || u.Refused[0].Path != c.path || !strings.Contains(u.Refused[0].Msg, c.msg) {
				t.Errorf("refused %+v, want %s: …%s…", u.Refused, c.path, c.msg)
			}
			if u, _ := (APIServer{}).Update(object(t, c.old), object(t, c.old)); len(u.Refused) > 0 || u.Template {
				t.Errorf("the same object over itself: %+v", u)
			}
		})
	}
}

// TestUpdateAcceptsWhatMayChange: the kinds judged for an immutable field
// accept a change to the rest.
func TestUpdateAcceptsWhatMayChange(t *testing.T) {
	rb := "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: ci, namespace: shop}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}\nsubjects: [{kind: ServiceAccount, name: ci, namespace: shop}]\n"
	sc := "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: fast}\nprovisioner: ebs.csi.aws.com\nparameters: {type: gp3}\nallowVolumeExpansion: false\n"
	pc := "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\ndescription: batch\n"
	for _, c := range []struct{ name, old, new string }{
		{"RoleBinding subjects", rb, strings.Replace(rb, "name: ci, namespace: shop}]", "name: ci, namespace: shop}, {kind: ServiceAccount, name: deploy, namespace: shop}]", 1)},
		{"StorageClass expansion", sc, strings.Replace(sc, "allowVolumeExpansion: false", "allowVolumeExpansion: true", 1)},
		{"PriorityClass description", pc, strings.Replace(pc, "description: batch", "description: nightly batch", 1)},
		{"CSIDriver podInfoOnMount", csiDriver, strings.Replace(csiDriver, "podInfoOnMount: false", "podInfoOnMount: true", 1)},
		{"an Ingress's backend", ingressShop, strings.Replace(ingressShop, "number: 80", "number: 8080", 1)},
		{"a budget's bound", budget, strings.Replace(budget, "minAvailable: 1", "minAvailable: 2", 1)},
		{"an autoscaler's maximum", autoscaler, strings.Replace(autoscaler, "maxReplicas: 10", "maxReplicas: 20", 1)},
		{"a Role's verbs", readerRole, strings.Replace(readerRole, "verbs: [get, list]", "verbs: [get, list, watch]", 1)},
		{"a webhook's timeout", webhook, strings.Replace(webhook, "timeoutSeconds: 5", "timeoutSeconds: 10", 1)},
		{"a NetworkPolicy's port", netpol, strings.Replace(netpol, "port: 8080", "port: 9090", 1)},
		{"a Namespace's labels", namespaceNS, strings.Replace(namespaceNS, "team: a", "team: b", 1)},
		{"a quota", quota, strings.Replace(quota, `"10"`, `"20"`, 1)},
		{"a LimitRange's default", limits, strings.Replace(limits, "256Mi", "512Mi", 1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.old == c.new {
				t.Fatal("the case changes nothing")
			}
			u, err := APIServer{}.Update(object(t, c.old), object(t, c.new))
			if err != nil || !u.Known || len(u.Refused) > 0 {
				t.Errorf("%+v, %v; want known and accepted", u, err)
			}
		})
	}
}

// TestUpdateWithoutNamespace: a namespaced object that names no
// namespace goes where kubectl sends it (the context's, or -n), which the
// API server requires of the stored object, not of the manifest: its
// update is judged as any other, in each kind the registry knows.
func TestUpdateWithoutNamespace(t *testing.T) {
	deploy := strings.Replace(web, "{name: web, namespace: shop}", "{name: web}", 1)
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: V}\n"
	svc := "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: [{port: 80}]}\n"
	for _, c := range []struct {
		name, old, new string
		template       bool
	}{
		{"Deployment", deploy, strings.Replace(deploy, "web:2.4.1", "web:2.5.0", 1), true},
		{"ConfigMap", cm, strings.Replace(cm, "k: V", "k: W", 1), false},
		{"Service", svc, strings.Replace(svc, "port: 80", "port: 81", 1), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.old == c.new || strings.Contains(c.old, "namespace") {
				t.Fatalf("the case changes nothing or names a namespace: %q", c.old)
			}
			u, err := APIServer{}.Update(object(t, c.old), object(t, c.new))
			if err != nil {
				t.Fatal(err)
			}
			if !u.Known || len(u.Refused) > 0 || u.Template != c.template {
				t.Errorf("%+v; want known, not refused, template changed: %v", u, c.template)
			}
		})
	}
}

// TestUpdateRefusesWhatDoesNotDecode: kubectl apply asks the API server
// for strict field validation (its default --validate=strict), so a head
// that brings an unknown field or a value of the wrong type is refused at
// decoding, with the API server's words and no value; one the base already
// had the same way is no refusal, since kubectl's patch carries only what
// changed.
func TestUpdateRefusesWhatDoesNotDecode(t *testing.T) {
	typo := "          imagePullPolcy: Always\n          env:"
	secret := "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: shop}\nstringData: {token: hunter2}\n"
	for _, c := range []struct {
		name, old, new string
		path, msg      string // the refusal; "" none
	}{
		{"unknown field", web, strings.Replace(web, "          env:", typo, 1),
			"", `strict decoding error: unknown field "spec.template.spec.containers[0].imagePullPolcy"`},
		{"unknown field the base had", strings.Replace(web, "          env:", typo, 1), strings.Replace(strings.Replace(web, "          env:", typo, 1), "web:2.4.1", "web:2.5.0", 1), "", ""},
		{"only the new of two", strings.Replace(web, "          env:", typo, 1), strings.Replace(strings.Replace(web, "          env:", typo, 1), "  selector:", "  replica: 2\n  selector:", 1),
			"", `strict decoding error: unknown field "spec.replica"`},
		{"wrong type", web, strings.Replace(web, `value: "2"`, "value: 2", 1),
			"spec.template.spec.containers.env.value", "cannot convert int64 to string"},
		{"a Secret's unknown field", secret, strings.Replace(secret, "stringData:", "stringDatta:", 1),
			"", `strict decoding error: unknown field "stringDatta"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.old == c.new {
				t.Fatal("the case changes nothing")
			}
			u, err := APIServer{}.Update(object(t, c.old), object(t, c.new))
			if err != nil {
				t.Fatal(err)
			}
			if c.msg == "" {
				if len(u.Refused) > 0 || !u.Known {
					t.Errorf("%+v; want known and accepted", u)
				}
				return
			}
			if len(u.Refused) != 1 || u.Refused[0].Path != c.path || u.Refused[0].Msg != c.msg || u.Known {
				t.Errorf("%+v; want refused only (%q: %q)", u, c.path, c.msg)
			}
			for _, p := range u.Refused {
				if strings.Contains(p.Msg, "hunter2") {
					t.Errorf("a Secret's value in %q", p.Msg)
				}
			}
		})
	}
}

// TestUpdateServiceKeepsAllocatedValues: a Service update that leaves the
// stored clusterIP, a port's nodePort or the healthCheckNodePort empty
// keeps them, as the Service registry patches them in before it validates;
// one that changes them is refused.
func TestUpdateServiceKeepsAllocatedValues(t *testing.T) {
	lb := `apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  type: LoadBalancer
  externalTrafficPolicy: Local
  clusterIP: 10.96.0.40
  healthCheckNodePort: 30400
  selector: {app: web}
  ports:
    - {name: http, port: 80, targetPort: 8080, nodePort: 30080}
    - {name: https, port: 443, targetPort: 8443, nodePort: 30443}
`
	headless := "apiVersion: v1\nkind: Service\nmetadata: {name: db, namespace: shop}\nspec:\n  clusterIP: None\n  selector: {app: db}\n  ports: [{port: 5432}]\n"
	// kept are the fields the cluster keeps: the head of every case leaves
	// clusterIPs out, which the registry keeps from the stored Service.
	kept := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	ips := "spec.clusterIPs"
	dual := strings.Replace(lb, "  clusterIP: 10.96.0.40\n", "  clusterIP: 10.96.0.40\n  clusterIPs: [10.96.0.40]\n", 1)
	for _, c := range []struct {
		name, old, from, to, refused string
		kept                         map[string]string // what the update leaves out and the cluster keeps
	}{
		{"clusterIP dropped", lb, "  clusterIP: 10.96.0.40\n", "", "", kept("spec.clusterIP", "10.96.0.40", ips, "[10.96.0.40]")},
		{"clusterIPs dropped", dual, "  clusterIPs: [10.96.0.40]\n", "", "", kept(ips, "[10.96.0.40]")},
		{"nodePorts dropped", lb, "targetPort: 8080, nodePort: 30080}", "targetPort: 8081}", "", kept(ips, "[10.96.0.40]", "spec.ports[http].nodePort", "30080")},
		{"healthCheckNodePort dropped", lb, "  healthCheckNodePort: 30400\n", "", "", kept(ips, "[10.96.0.40]", "spec.healthCheckNodePort", "30400")},
		{"all dropped", lb, "  clusterIP: 10.96.0.40\n  healthCheckNodePort: 30400\n", "", "", kept("spec.clusterIP", "10.96.0.40", ips, "[10.96.0.40]", "spec.healthCheckNodePort", "30400")},
		{"headless dropped", headless, "  clusterIP: None\n", "", "", kept("spec.clusterIP", "None", ips, "[None]")},
		{"clusterIP changed", lb, "clusterIP: 10.96.0.40", "clusterIP: 10.96.0.41", "spec.clusterIPs[0]", kept(ips, "[10.96.0.40]")},
		{"headless made ClusterIP", headless, "clusterIP: None", "clusterIP: 10.96.0.41", "spec.clusterIPs[0]", kept(ips, "[None]")},
		{"nodePort changed", lb, "nodePort: 30080", "nodePort: 30081", "", kept(ips, "[10.96.0.40]")},
		// A health check node port the cluster allocated is kept unsaid (its
		// value is the cluster's); one the update needs anew is allocated
		// before validation, as the registry's allocator does.
		{"healthCheckNodePort allocated", strings.Replace(lb, "  healthCheckNodePort: 30400\n", "", 1), "targetPort: 8443", "targetPort: 9443", "", kept(ips, "[10.96.0.40]")},
		{"made LoadBalancer", strings.Replace(lb, "  type: LoadBalancer\n  externalTrafficPolicy: Local\n", "", 1), "  clusterIP: 10.96.0.40\n  healthCheckNodePort: 30400\n", "  type: LoadBalancer\n  externalTrafficPolicy: Local\n  clusterIP: 10.96.0.40\n", "", kept(ips, "[10.96.0.40]")},
		// A Service that no longer needs node ports keeps none.
		{"made ClusterIP", lb, "  type: LoadBalancer\n  externalTrafficPolicy: Local\n  clusterIP: 10.96.0.40\n  healthCheckNodePort: 30400\n", "  clusterIP: 10.96.0.40\n", "", kept(ips, "[10.96.0.40]")},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(c.old, c.from) {
				t.Fatalf("%q is not in the Service", c.from)
			}
			u, err := APIServer{}.Update(object(t, c.old), object(t, strings.Replace(c.old, c.from, c.to, 1)))
			if err != nil {
				t.Fatal(err)
			}
			if !u.Known || c.refused == "" && len(u.Refused) > 0 || c.refused != "" && (len(u.Refused) == 0 || u.Refused[0].Path != c.refused || !strings.Contains(u.Refused[0].Msg, "may not change once set")) {
				t.Errorf("Known %v, refused %+v, want %q", u.Known, u.Refused, c.refused)
			}
			if !maps.Equal(u.Kept, c.kept) {
				t.Errorf("kept %v, want %v", u.Kept, c.kept)
			}
		})
	}
}

// BenchmarkUpdate judges a Deployment whose image changes, as krender
// diff judges each changed workload: both sides decoded, defaulted and
// converted, the update validated, the stored pod templates compared
// and read back (the template differs).
func BenchmarkUpdate(b *testing.B) {
	old, err := manifest.Parse(manifest.NewSource("old.yaml", []byte(web)))
	if err != nil {
		b.Fatal(err)
	}
	new, err := manifest.Parse(manifest.NewSource("new.yaml", []byte(strings.Replace(web, "web:2.4.1", "web:2.5.0", 1))))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		u, err := APIServer{}.Update(old[0], new[0])
		if err != nil || !u.Template {
			b.Fatalf("%+v, %v", u, err)
		}
	}
}

// TestCreate: an object the head adds is judged as the API server creates
// it: decoded strictly, defaulted, then the registry's create validation;
// what kubectl cannot send at all is refused in kubectl's words.
func TestCreate(t *testing.T) {
	headless := "apiVersion: v1\nkind: Service\nmetadata: {name: db, namespace: shop}\nspec: {clusterIP: None, selector: {app: db}, ports: [{port: 5432}]}\n"
	agent := strings.Replace(web, "          env:", "          securityContext: {privileged: true}\n          env:", 1)
	for _, c := range []struct{ name, text, path, msg string }{
		{"a Deployment", web, "", ""},
		{"a headless Service", headless, "", ""},
		{"a privileged container", agent, "", ""},
		{"a LoadBalancer with a Local traffic policy", "apiVersion: v1\nkind: Service\nmetadata: {name: edge, namespace: shop}\nspec: {type: LoadBalancer, externalTrafficPolicy: Local, selector: {app: edge}, ports: [{port: 443}]}\n", "", ""},
		{"a selector its pods do not match", strings.Replace(web, "    metadata: {labels: {app: web}}", "    metadata: {labels: {app: webb}}", 1), "spec.template.metadata.labels", "`selector` does not match template `labels`"},
		{"a port out of range", strings.Replace(web, "containerPort: 8080", "containerPort: 80800", 1), "spec.template.spec.containers[0].ports[0].containerPort", "must be between 1 and 65535"},
		{"an unknown field", strings.Replace(web, "          env:", "          imagePullPolcy: Always\n          env:", 1), "",
			`Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].imagePullPolcy"`},
		{"YAML kubectl cannot read", strings.Replace(headless, "selector: {app: db}", "selector: {app: {{cell}}}", 1), "", `kubectl cannot send it: error converting YAML to JSON: yaml: invalid map key: map[interface {}]interface {}{"cell":""}`},
		{"YAML kubectl cannot read, of a kind judged no further", "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata: {name: {{name}}, namespace: shop}\n", "", "kubectl cannot send it"},
		{"an Ingress", ingressShop, "", ""},
		{"an Ingress path with no pathType", strings.Replace(ingressShop, "pathType: Prefix, ", "", 1), "spec.rules[0].http.paths[0].pathType", "Required value"},
		{"a webhook", webhook, "", ""},
		{"a webhook that names no review versions", strings.Replace(webhook, "    admissionReviewVersions: [v1]\n", "", 1), "webhooks[0].admissionReviewVersions", "Required value"},
		{"a NetworkPolicy", netpol, "", ""},
		{"a NetworkPolicy's port out of range", strings.Replace(netpol, "port: 8080", "port: 80800", 1), "spec.ingress[0].ports[0].port", "must be between 1 and 65535"},
		{"a budget", budget, "", ""},
		{"an autoscaler", autoscaler, "", ""},
		{"a Role", readerRole, "", ""},
		{"a Namespace", namespaceNS, "", ""},
		{"a quota", quota, "", ""},
		{"a LimitRange", limits, "", ""},
		{"an IngressClass", ingressClass, "", ""},
		{"a CSIDriver", csiDriver, "", ""},
		{"a Namespace named as no DNS label", strings.Replace(namespaceNS, "name: shop", "name: Shop_A", 1), "metadata.name", "a lowercase RFC 1123 label"},
		{"a ReplicationController with no selector nor labels", "apiVersion: v1\nkind: ReplicationController\nmetadata: {name: rc, namespace: shop}\nspec:\n  template:\n    spec: {containers: [{name: c, image: \"a:1\"}]}\n", "spec.selector", "Required value"},
		{"a PersistentVolume's unknown field", "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv}\nspec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], hostPath: {path: /data, kind: x}}\n", "",
			`strict decoding error: unknown field "spec.hostPath.kind"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			ps, err := APIServer{}.Create(object(t, c.text))
			if err != nil {
				t.Fatal(err)
			}
			if c.msg == "" {
				if len(ps) > 0 {
					t.Errorf("refused %+v; want it created", ps)
				}
				return
			}
			if len(ps) == 0 || ps[0].Path != c.path || !strings.Contains(ps[0].Msg, c.msg) {
				t.Errorf("refused %+v; want %s: …%s…", ps, c.path, c.msg)
			}
		})
	}
}

// TestUpdateOfWhatCannotBeApplied: a base kubectl cannot send, or the API
// server cannot decode, was never applied as written: the head's apply
// creates the object, and is judged so. A head kubectl cannot send is
// refused.
func TestUpdateOfWhatCannotBeApplied(t *testing.T) {
	unsent := strings.Replace(web, "labels: {app: web}}", "labels: {app: {{name}}}}", 1)
	wrongType := strings.Replace(web, `value: "2"`, "value: [2]", 1)
	for _, c := range []struct{ name, old, new, msg string }{
		{"a base kubectl cannot send", unsent, web, ""},
		{"a base the API server cannot decode", wrongType, web, ""},
		{"a base that cannot be applied, a head that cannot be created", wrongType, strings.Replace(web, "containerPort: 8080", "containerPort: 80800", 1), "must be between 1 and 65535"},
		{"a head kubectl cannot send", web, unsent, "kubectl cannot send it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(c.old+c.new, "{{") && !strings.Contains(c.old, "[2]") {
				t.Fatal("the case holds nothing that cannot be applied")
			}
			u, err := APIServer{}.Update(object(t, c.old), object(t, c.new))
			if err != nil {
				t.Fatal(err)
			}
			if c.msg == "" && len(u.Refused) > 0 || c.msg != "" && (len(u.Refused) == 0 || !strings.Contains(u.Refused[0].Msg, c.msg)) || u.Known {
				t.Errorf("%+v; want not known, refused: %q", u, c.msg)
			}
		})
	}
}

// TestUpdateKeepsThePullPolicy: the pull policy the API server defaulted
// from a :latest image stays where neither side writes one, as kubectl's
// patch leaves it: a bare Pod's new image is accepted, a Deployment's
// template differs by its image alone. One a side writes is the side's.
func TestUpdateKeepsThePullPolicy(t *testing.T) {
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\nspec:\n  containers: [{name: c, image: \"busybox:latest\"}]\n"
	pinned := strings.Replace(pod, "busybox:latest", "busybox:1.36", 1)
	u, err := APIServer{}.Update(object(t, pod), object(t, pinned))
	if err != nil || len(u.Refused) > 0 || !u.Template {
		t.Errorf("a bare Pod's new image: %+v, %v; want accepted, its spec changed", u, err)
	}
	explicit := strings.Replace(pod, "image: \"busybox:latest\"", "image: \"busybox:latest\", imagePullPolicy: Always", 1)
	if u, err := (APIServer{}).Update(object(t, explicit), object(t, pinned)); err != nil || len(u.Refused) == 0 {
		t.Errorf("the base's written policy dropped: %+v, %v; want refused (the policy changes)", u, err)
	}
	latest := strings.Replace(web, "web:2.4.1", "web:latest", 1)
	u, err = APIServer{}.Update(object(t, latest), object(t, web))
	if err != nil || !u.Template {
		t.Fatalf("%+v, %v", u, err)
	}
	a, b, ok := u.Stored([]string{"spec", "template", "spec", "containers", "[web]", "imagePullPolicy"})
	if !ok || a != "Always" || b != "Always" {
		t.Errorf("the stored pull policies: %v, %v (%v); want Always on both sides", a, b, ok)
	}
}

// TestStoredAt: a judged update reads both stored objects at a path as
// JSON values (what runtime's ToUnstructured makes of them), through
// inlined structs, named items, indexes and maps; nothing where the object
// holds nothing there; not ok where the path names no field.
func TestStoredAt(t *testing.T) {
	old := strings.Replace(web, "          ports: [{containerPort: 8080}]", "          ports: [{containerPort: 8080}]\n      volumes: [{name: cfg, configMap: {name: web-config}}]\n      tolerations: [{key: a, operator: Exists}]", 1)
	new := strings.Replace(strings.Replace(old, "web:2.4.1", "web:2.5.0", 1), "memory: 1024Mi", "memory: 2Gi", 1)
	u, err := APIServer{}.Update(object(t, old), object(t, new))
	if err != nil || u.Stored == nil {
		t.Fatalf("%+v, %v", u, err)
	}
	spec := []string{"spec", "template", "spec"}
	for _, c := range []struct {
		path     []string
		old, new any
		ok       bool
	}{
		{append(spec, "containers", "[web]", "image"), "registry.example.com/web:2.4.1", "registry.example.com/web:2.5.0", true},
		{append(spec, "containers", "[web]", "resources", "limits", "memory"), "1Gi", "2Gi", true},
		{append(spec, "containers", "[web]", "resources", "limits", "cpu"), "500m", "500m", true},
		{append(spec, "containers", "[web]", "ports", "[0]", "containerPort"), int64(8080), int64(8080), true},
		{append(spec, "containers", "[web]", "ports", "[0]", "protocol"), "TCP", "TCP", true},
		{append(spec, "containers", "[web]", "env", "[B]", "value"), "2", "2", true},
		{append(spec, "volumes", "[cfg]", "configMap", "name"), "web-config", "web-config", true},    // VolumeSource is inlined
		{append(spec, "volumes", "[cfg]", "configMap", "defaultMode"), int64(420), int64(420), true}, // the API server's default
		{append(spec, "tolerations", "[0]", "operator"), "Exists", "Exists", true},
		{append(spec, "containers", "[sidecar]", "image"), nil, nil, true},
		{append(spec, "hostNetwork"), nil, nil, true}, // false, omitted
		{append(spec, "containers", "[web]", "imagePulPolicy"), nil, nil, false},
	} {
		a, b, ok := u.Stored(c.path)
		if !reflect.DeepEqual(a, c.old) || !reflect.DeepEqual(b, c.new) || ok != c.ok {
			t.Errorf("%v: %#v, %#v (%v); want %#v, %#v (%v)", c.path, a, b, ok, c.old, c.new, c.ok)
		}
	}
}
