// Package ordinary writes ordinary manifests of a given size: block-style
// YAML as kubectl, Helm and kustomize write it. The default limits
// (docs/limits.md) must admit such manifests up to the byte limits; the
// tests that hold them to that generate their input here.
package ordinary

import (
	"fmt"
	"strings"
)

// Deployment is the i-th of many small Deployments: some 300 bytes and 7.5
// bytes a node, the densest ordinary manifests measured.
func Deployment(i int) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-%[1]d
  labels:
    app: app-%[1]d
spec:
  replicas: 2
  selector:
    matchLabels:
      app: app-%[1]d
  template:
    metadata:
      labels:
        app: app-%[1]d
    spec:
      containers:
      - name: app
        image: nginx:1.27
`, i)
}

// Smallest is about the smallest object the API server accepts: 45 bytes,
// 49 with its separator. Every one is named a: only the number of
// documents matters.
func Smallest(int) string { return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n" }

// Fill is as many documents doc(start), doc(start+1), … as fit in size
// bytes, separated by `---`, and how many there are.
func Fill(size, start int, doc func(int) string) (text []byte, docs int) {
	var b strings.Builder
	b.Grow(size)
	for i := start; ; i++ {
		d := doc(i)
		if b.Len() > 0 {
			d = "---\n" + d
		}
		if b.Len()+len(d) > size {
			return []byte(b.String()), i - start
		}
		b.WriteString(d)
	}
}

// LargeDeployment is one Deployment of about size bytes (no more), its one
// container given a long list of environment variables: the shape of the
// largest ordinary documents.
func LargeDeployment(size int) string {
	head := Deployment(0) + "        env:\n"
	var b strings.Builder
	b.WriteString(head)
	for i := 0; ; i++ {
		v := fmt.Sprintf("        - name: SETTING_%06d\n          value: \"%d\"\n", i, i)
		if b.Len()+len(v) > size {
			return b.String()
		}
		b.WriteString(v)
	}
}
