package main

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkHost measures the host.workspace API over loopback HTTP against
// the built aw serve: GET and PUT of a 2 KiB file with 1, 8 and 64
// concurrent clients, on SQLite and PostgreSQL, in one run. It reports
// p50 and p99 latency and throughput per case:
//
//	go test ./cmd/aw -run '^$' -bench BenchmarkHost -benchtime 2000x
//
// (targets on SQLite at 1 client: GET p50 < 1 ms, PUT p50 < 5 ms).
func BenchmarkHost(b *testing.B) {
	for _, be := range hostBackends() {
		b.Run(be.name, func(b *testing.B) {
			st := newHostStore(b, be)
			h := st.serve(b)
			tok := st.token(b, "bench", "w")
			body := strings.Repeat("ground truth. ", 150) // ~2 KiB
			// Each client its own file for PUT (no conflicts, no If-Match):
			// the figure is the write path, not a contention test.
			for c := 0; c < 64; c++ {
				h.put(b, tok, fmt.Sprintf("bench/%d.md", c), body, "").want(b, 200, "")
			}
			for _, op := range []string{"GET", "PUT"} {
				for _, clients := range []int{1, 8, 64} {
					b.Run(fmt.Sprintf("%s/clients=%d", op, clients), func(b *testing.B) {
						lat := make([]time.Duration, b.N)
						var next int64
						var mu sync.Mutex
						tr := &http.Transport{MaxIdleConnsPerHost: 128, MaxConnsPerHost: 128}
						cl := &http.Client{Transport: tr}
						defer tr.CloseIdleConnections()
						b.ResetTimer()
						start := time.Now()
						var wg sync.WaitGroup
						for c := 0; c < clients; c++ {
							wg.Add(1)
							go func(c int) {
								defer wg.Done()
								path := h.url + fmt.Sprintf("/v1/host/workspace/files/bench/%d.md", c)
								for {
									mu.Lock()
									i := next
									next++
									mu.Unlock()
									if i >= int64(b.N) {
										return
									}
									t0 := time.Now()
									var req *http.Request
									if op == "GET" {
										req, _ = http.NewRequest("GET", path, nil)
									} else {
										req, _ = http.NewRequest("PUT", path, strings.NewReader(jsonBody(body)))
									}
									req.Header.Set("Authorization", "Bearer "+tok)
									resp, err := cl.Do(req)
									if err != nil {
										b.Error(err)
										return
									}
									var buf [4096]byte
									for {
										if _, err := resp.Body.Read(buf[:]); err != nil {
											break
										}
									}
									resp.Body.Close()
									if resp.StatusCode != 200 {
										b.Errorf("HTTP %d", resp.StatusCode)
										return
									}
									lat[i] = time.Since(t0)
								}
							}(c)
						}
						wg.Wait()
						elapsed := time.Since(start)
						b.StopTimer()
						sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
						p := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) / 1000 }
						b.ReportMetric(p(0.50), "p50-ms")
						b.ReportMetric(p(0.99), "p99-ms")
						b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
						b.ReportMetric(0, "ns/op")
					})
				}
			}
		})
	}
}
