package render

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/krender/krender/model/manifest"
)

// askedContext is done from the at-th time it is asked whether it is
// (Done, Err): a cancellation at a known point of the work, whatever the
// machine's speed. It counts every question.
type askedContext struct {
	mu    sync.Mutex
	at    int // 0: never done
	asked int
	done  chan struct{}
}

func newAskedContext(at int) *askedContext {
	return &askedContext{at: at, done: make(chan struct{})}
}

func (c *askedContext) ask() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.asked++; c.asked == c.at {
		close(c.done)
	}
}

func (c *askedContext) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.asked
}

func (c *askedContext) Done() <-chan struct{} { c.ask(); return c.done }
func (c *askedContext) Err() error {
	c.ask()
	select {
	case <-c.done:
		return context.Canceled
	default:
		return nil
	}
}
func (c *askedContext) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *askedContext) Value(any) any               { return nil }

// interruptFiles are a run every stage has work in: scripts substituted,
// Deployments injected into and split by zone, ConfigMaps hashed.
func interruptFiles() map[string]string {
	files := map[string]string{
		"p.yaml": `vars: {V: one}
inject:
  - {name: env, fragment: f.yaml, container: app}
zones:
  z-a: {hostAliases: []}
  z-b: {hostAliases: []}
zoneHosts: {strategy: split}
`,
		"f.yaml": "env: [{name: A, value: a}]\n",
	}
	var b strings.Builder
	for i := range 20 {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm-%d}\ndata:\n  run.sh: |\n", i)
		for k := range 30 {
			fmt.Fprintf(&b, "    echo %d $HOME ${V} $V\n", k)
		}
		fmt.Fprintf(&b, "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d-%d}\nspec:\n  selector: {matchLabels: {app: d}}\n"+
			"  template:\n    metadata: {labels: {app: d}}\n    spec:\n      containers: [{name: app, image: x}]\n      volumes: [{name: c, configMap: {name: cm-%d}}]\n", i, i)
	}
	files["t.yaml"] = b.String()
	return files
}

// A render whose context is done in the middle of any stage (or of the
// reading) stops there: the stage returns the context's cause before its
// next object, no later stage runs, nothing is emitted, and the engine asks
// the context only a few times more. The point of the cancellation is a
// count of the engine's own questions, so the test does not depend on
// time; one worker makes the count the same on every run.
func TestCancelledMidStage(t *testing.T) {
	files := interruptFiles()
	render := func(ctx context.Context, after func(string)) (emitted int, err error) {
		e, err := load(mapFS(files), Options{Profile: "p.yaml", Paths: []string{"t.yaml"}, Context: ctx,
			AfterStage: func(stage string, _ *manifest.Set) { after(stage) }})
		if err != nil {
			return 0, err
		}
		after("") // loaded
		e.Workers = 1
		_, err = e.Each(func(*manifest.Set) error { emitted++; return nil })
		return emitted, err
	}
	// Where each stage starts and ends, in questions asked.
	ctx := newAskedContext(0)
	type span struct {
		stage      string
		start, end int
	}
	var spans []span
	start := 0
	if _, err := render(ctx, func(stage string) {
		if stage != "" {
			spans = append(spans, span{stage, start, ctx.count()})
		}
		start = ctx.count()
	}); err != nil {
		t.Fatal(err)
	}
	asking := map[string]bool{}
	for _, s := range spans {
		if s.end-s.start > 1 { // more than the engine's own question before the stage
			asking[s.stage] = true
		}
	}
	for _, want := range []string{"*subst.Stage", "render.duplicateKeys", "*inject.Stage", "*zones.Stage", "*contenthash.Stage"} {
		if !asking[want] {
			t.Errorf("%s asks nothing: %v", want, spans)
		}
	}
	for i, s := range spans {
		if s.end-s.start <= 1 {
			continue
		}
		t.Run(s.stage, func(t *testing.T) {
			at := (s.start + s.end) / 2
			ctx := newAskedContext(at)
			var ran []string
			emitted, err := render(ctx, func(stage string) {
				if stage != "" {
					ran = append(ran, stage)
				}
			})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("done at question %d, in %s: %v", at, s.stage, err)
			}
			if len(ran) != i {
				t.Errorf("done in %s: stages %v ran to their end", s.stage, ran)
			}
			if emitted != 0 {
				t.Errorf("done in %s: %d units emitted", s.stage, emitted)
			}
			if more := ctx.count() - at; more > 3 {
				t.Errorf("done in %s: asked %d times more before it stopped", s.stage, more)
			}
		})
	}
	// While the templates are read: before the next document.
	t.Run("reading", func(t *testing.T) {
		ctx := newAskedContext(5)
		_, err := render(ctx, func(stage string) { t.Errorf("%q ran", stage) })
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("done while reading: %v", err)
		}
		if more := ctx.count() - 5; more > 3 {
			t.Errorf("asked %d times more before it stopped", more)
		}
	})
}
