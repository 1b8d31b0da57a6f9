package zones_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/filesys"
)

// BenchmarkRender renders 1,000 Deployments (each with hand-written
// hostAliases to convert) with the stage off, static and split over three
// zones; the differences are the stage's cost.
func BenchmarkRender(b *testing.B) {
	var tpl strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&tpl, `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app-%d}
spec:
  replicas: 7
  selector: {matchLabels: {app: app-%d}}
  template:
    metadata: {labels: {app: app-%d}}
    spec:
      hostAliases:
        - {ip: 10.0.9.9, hostnames: [fs-0123456789abcdef0.efs.ap-northeast-2.amazonaws.com, other.internal]}
      containers:
        - {name: app, image: registry.example.com/app:1.0}
`, i, i, i)
	}
	for _, strategy := range []string{"off", "static", "split"} {
		b.Run(strategy, func(b *testing.B) {
			prof := strings.Replace(profile, "strategy: split", "strategy: "+strategy+"\n  zone: ap-northeast-2a", 1)
			fsys := fstest.MapFS{"profile.yaml": {Data: []byte(prof)}, "app.yaml": {Data: []byte(tpl.String())}}
			e, err := action.Engine(filesys.NewMem(fsys), action.Options{Profile: "profile.yaml", Paths: []string{"app.yaml"}})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := e.Render(e.Units[0]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
