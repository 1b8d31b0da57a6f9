package render

import (
	"math"
	"runtime"
	"sync"

	"github.com/krender/krender/internal/bug"
	"github.com/krender/krender/model/limits"
	"github.com/krender/krender/model/manifest"
)

// inOrder computes work(i) for i in [0, n) on several goroutines and hands
// each result to emit on the calling goroutine, strictly in index order. At
// most window results are held (computing or waiting for emit) at any time,
// so memory does not grow with n. The first error in index order wins, even
// when a later index failed first in time, so a run's error is the same on
// every machine; after it nothing more is emitted or started.
func inOrder[T any](n, workers, window int, work func(i int) (T, error), emit func(i int, v T) error) error {
	if n == 0 {
		return nil
	}
	workers = max(1, min(workers, n))
	window = max(window, workers)
	type outcome struct {
		v   T
		err error
	}
	// Index i is in flight only while i-window < next to emit, so one slot
	// per position modulo window is enough.
	slots := make([]chan outcome, window)
	for k := range slots {
		slots[k] = make(chan outcome, 1)
	}
	credit := make(chan struct{}, window)
	stop := make(chan struct{})
	jobs := make(chan int)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(stop)

	wg.Add(1)
	go func() { // hands out indexes in order, as the window allows
		defer wg.Done()
		defer close(jobs)
		for i := range n {
			select {
			case credit <- struct{}{}:
			case <-stop:
				return
			}
			select {
			case jobs <- i:
			case <-stop:
				return
			}
		}
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				v, err := guarded(work, i)
				slots[i%window] <- outcome{v, err} // never blocks: the slot was emptied before i got credit
			}
		}()
	}
	for i := range n {
		r := <-slots[i%window]
		if r.err != nil {
			return r.err
		}
		if err := emit(i, r.v); err != nil {
			return err
		}
		<-credit
	}
	return nil
}

// workers is how many units render at once: the engine's setting, else one
// per usable CPU (GOMAXPROCS, which honours container CPU limits), and no
// more than atOnce allows, nor than workerNodes allows for the largest
// object: hashing and encoding an object take several times its size
// while they run.
func (e *Engine) workers() int {
	w := e.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	if e.largestObject > 0 {
		w = min(w, workerNodes/e.largestObject)
	}
	return max(1, min(w, e.atOnce()))
}

// workerNodes is the object size at which one unit renders at a time: an
// object near limits.nodes then costs what one costs, not one per CPU.
const workerNodes = 150_000

// window bounds the units held in memory: enough for every worker to have
// the next unit ready while the consumer writes the current one.
func (e *Engine) window() int { return max(e.workers(), min(2*e.workers(), e.atOnce())) }

// nodesInFlight bounds the template nodes that units in flight hold, each
// unit a copy of every template: with templates near limits.inputNodes,
// a machine with many CPUs renders fewer units at once rather than hold
// hundreds of copies (a node costs about 250 bytes here).
const nodesInFlight = 1_000_000

// bytesInFlight does the same for the templates' text, which each unit's
// output repeats (and hashing copies).
const bytesInFlight = 64 << 20

// atOnce is how many units nodesInFlight and bytesInFlight allow at once.
func (e *Engine) atOnce() int {
	n := math.MaxInt
	if e.templateNodes > 0 {
		n = nodesInFlight / e.templateNodes
	}
	if text := e.templateText(); text > 0 {
		n = min(n, bytesInFlight/text)
	}
	return max(1, n)
}

// templateText is the bytes of the templates' files.
func (e *Engine) templateText() int {
	seen := map[*manifest.Source]bool{}
	text := 0
	for _, t := range e.Templates {
		if !seen[t.Src] {
			seen[t.Src] = true
			text += len(t.Src.Text)
		}
	}
	return text
}

// MemoryLimit is a soft limit that leaves the collector little to do (the CLI
// collects at three times the live heap) without letting a large fleet grow
// without bound. The live heap is the parsed templates, the held-back output
// and the units in flight: window() of them at once, two per worker, each
// about 40 times its templates' text as nodes and encoded output (measured on
// the bench fleet: 9-16 MB live with four units of 48 KB of templates). Each
// unit is given 64 times, over a 128 MiB base: about the former fixed
// 150 MiB on two CPUs, and room for the 128 units a 64-CPU runner holds.
//
// Garbage may take the heap no further than maxMemoryLimit, so that a run
// within the default limits stays under 1 GiB; only a live heap estimated
// above that (limits raised) gets more, a quarter over it, rather than a
// collector that never stops.
func (e *Engine) MemoryLimit() int64 {
	limit := min(128<<20+int64(e.window())*64*int64(e.templateText()), maxMemoryLimit)
	copies := 1 + e.window() // the parsed templates and a copy per unit held
	if e.once && len(e.Units) == 1 {
		copies = 1 // the one unit takes the templates
	}
	live := int64(copies) * int64(e.templateNodes) * liveBytesPerNode
	return max(limit, live+live/4)
}

// maxMemoryLimit is as far as the soft limit lets garbage grow the heap.
const maxMemoryLimit = 768 << 20

// liveBytesPerNode is what a parsed node costs, its text and slices
// included (measured: 220 bytes in small Deployments).
const liveBytesPerNode = 256

// ParseMemoryLimit is the soft limit while templates are parsed, read bytes
// of them so far: 128 MiB over what their nodes keep (about 27 times their
// text in ordinary YAML, and no more than OrdinaryBytesPerNode allows),
// at most maxMemoryLimit. A hostile file is refused well within it.
func ParseMemoryLimit(read int) int64 {
	return min(128<<20+int64(read)/limits.OrdinaryBytesPerNode*liveBytesPerNode, maxMemoryLimit)
}

// guarded is work(i) with a panic turned into an error on this goroutine.
func guarded[T any](work func(int) (T, error), i int) (v T, err error) {
	defer bug.Recover(&err)
	return work(i)
}
