package contenthash_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/loader"
	"github.com/krender/krender/files/output"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
	"github.com/krender/krender/render/contenthash"
)

// fleet writes n/2 apps, each a ConfigMap and a Deployment that uses it
// three ways (volume, envFrom, env valueFrom), one file per app.
func fleet(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "profile.yaml"), []byte("vars: {ENV: bench}\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	tpl := filepath.Join(dir, "templates")
	if err := os.Mkdir(tpl, 0o755); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n/2; i++ {
		app := fmt.Sprintf("app-%05d", i)
		text := strings.ReplaceAll(fleetApp, "APP", app)
		if err := os.WriteFile(filepath.Join(tpl, app+".yaml"), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

const fleetApp = `apiVersion: v1
kind: ConfigMap
metadata:
  name: APP-config
  labels: {app: APP}
data:
  ENVIRONMENT: ${ENV}
  application.properties: |
    name=APP
    pool.size=10
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: APP
  labels: {app: APP}
spec:
  replicas: 2
  selector:
    matchLabels: {app: APP}
  template:
    metadata:
      labels: {app: APP}
    spec:
      containers:
        - name: app
          image: registry.example.com/APP:1.0.0
          envFrom:
            - configMapRef:
                name: APP-config
          env:
            - name: ENVIRONMENT
              valueFrom:
                configMapKeyRef:
                  name: APP-config
                  key: ENVIRONMENT
          volumeMounts:
            - name: config
              mountPath: /app/application.properties
              subPath: application.properties
          ports:
            - containerPort: 8080
      volumes:
        - name: config
          configMap:
            name: APP-config
`

var fleetSizes = []int{1000, 4000, 20000}

// BenchmarkRender is the whole render (parse, substitute, hash, print) of
// N objects; ns/object staying flat from 1k to 20k shows the cost is linear.
// Run with -benchtime=1x: the 20k case is one render of 20,000 objects.
func BenchmarkRender(b *testing.B) {
	for _, n := range fleetSizes {
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			dir := fleet(b, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				e, err := action.Engine(filesys.Dir(dir), action.Options{Profile: "profile.yaml", Paths: []string{"templates"}})
				if err != nil {
					b.Fatal(err)
				}
				var out bytes.Buffer
				if _, err := output.WriteStream(e, &out); err != nil {
					b.Fatal(err)
				}
				if i == 0 {
					checkFleet(b, out.Bytes(), n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
		})
	}
}

// checkFleet makes sure the benchmark measured real work: every ConfigMap
// renamed and each of the three references per Deployment rewritten.
func checkFleet(b *testing.B, out []byte, n int) {
	b.StopTimer()
	defer b.StartTimer()
	s := string(out)
	if got := strings.Count(s, "-config-"); got != n/2*4 {
		b.Fatalf("%d hashed names in the output, want %d (a ConfigMap and three references per app)", got, n/2*4)
	}
}

// BenchmarkStage is the hash stage alone on N parsed objects.
func BenchmarkStage(b *testing.B) {
	for _, n := range fleetSizes {
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			dir := fleet(b, n)
			tpls, err := loader.LoadTemplates(filesys.Dir(dir), []string{"templates"})
			if err != nil {
				b.Fatal(err)
			}
			st, err := contenthash.New(profiles.Hash{})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s := &manifest.Set{Namespace: "default"}
				for _, t := range tpls {
					s.Objects = append(s.Objects, t.Clone())
				}
				b.StartTimer()
				if err := st.Apply(s); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
		})
	}
}

// BenchmarkToKyaml compares the two ways across the yaml/v4 -> kyaml
// boundary for one ConfigMap: copying the hashed fields (what Sum does) and
// printing the object for kyaml to parse.
func BenchmarkToKyaml(b *testing.B) {
	objs := parseFile(b, "testdata/parity/krender-configs.yaml")
	o := objs[0]
	b.Run("field-copy", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := contenthash.Sum(o.Node); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("text", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sumByText(b, o)
		}
	})
}
