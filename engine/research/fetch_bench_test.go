package research

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkFetch20MB fetches and extracts the 20 MB page over loopback and
// reports the peak heap in use while it runs (sampled every millisecond)
// next to the page's size: memory is bounded by the read cap and the parsed
// document, never by holding the body twice.
//
//	go test ./engine/research -run '^$' -bench Fetch20MB -benchtime 5x
func BenchmarkFetch20MB(b *testing.B) {
	srv := pageServer(b)
	f := testFetcher()
	u, err := f.ParseURL(srv.URL + "/big")
	if err != nil {
		b.Fatal(err)
	}
	var peak atomic.Uint64
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				runtime.ReadMemStats(&m)
				if m.HeapInuse > peak.Load() {
					peak.Store(m.HeapInuse)
				}
			}
		}
	}()
	b.SetBytes(bigPageBytes)
	b.ResetTimer()
	var chars int
	for i := 0; i < b.N; i++ {
		got, err := f.Fetch(context.Background(), u)
		if err != nil {
			b.Fatal(err)
		}
		chars = len(got.Text)
	}
	b.StopTimer()
	close(stop)
	wg.Wait()
	b.ReportMetric(float64(peak.Load()-min(peak.Load(), base.HeapInuse))/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(chars)/(1<<20), "text-MiB")
}
