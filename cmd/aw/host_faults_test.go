package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestHostRacingWriters: 50 clients PUT the same file with the same
// If-Match at once, round after round: exactly one wins each version, the
// others get 409 with the winner's version, and no acknowledged write is
// lost. On each backend, and with two replicas on one PostgreSQL.
func TestHostRacingWriters(t *testing.T) {
	for _, b := range hostBackends() {
		t.Run(b.name, func(t *testing.T) {
			st := newHostStore(t, b)
			servers := []*hostServer{st.serve(t)}
			if b.name == "postgres" {
				servers = append(servers, st.serve(t))
			}
			tok := st.token(t, "race", "w")
			servers[0].put(t, tok, "race.md", "start", "").want(t, 200, "")
			const clients, rounds = 50, 4
			for round := 1; round <= rounds; round++ {
				etag := fmt.Sprintf(`"v%d"`, round)
				var mu sync.Mutex
				var winners []string
				conflicts := 0
				var wg sync.WaitGroup
				start := make(chan struct{})
				for c := 0; c < clients; c++ {
					wg.Add(1)
					go func(c int) {
						defer wg.Done()
						<-start
						h := servers[c%len(servers)]
						body := fmt.Sprintf("round %d client %d", round, c)
						r := h.put(t, tok, "race.md", body, etag)
						mu.Lock()
						defer mu.Unlock()
						switch r.status {
						case 200:
							winners = append(winners, body)
						case 409:
							if r.detail("currentVersion") != float64(round+1) {
								t.Errorf("409 names version %v, want %d", r.detail("currentVersion"), round+1)
							}
							conflicts++
						default:
							t.Errorf("HTTP %d: %s", r.status, r.raw)
						}
					}(c)
				}
				close(start)
				wg.Wait()
				if len(winners) != 1 || conflicts != clients-1 {
					t.Fatalf("round %d: %d winners, %d conflicts, want 1 and %d", round, len(winners), conflicts, clients-1)
				}
				for _, h := range servers {
					g := h.get(t, tok, "race.md")
					if g.str("content") != winners[0] || g.num("version") != int64(round+1) {
						t.Fatalf("round %d: the file is %s, the winner wrote %q", round, g.raw, winners[0])
					}
				}
			}
		})
	}
}

// TestHostSIGKILLKeepsAcknowledgedWrites kills the server during a stream of
// writes: after a restart every acknowledged write is there, and every file
// holds exactly one of the contents written to it (no partial file).
func TestHostSIGKILLKeepsAcknowledgedWrites(t *testing.T) {
	for _, b := range hostBackends() {
		t.Run(b.name, func(t *testing.T) {
			st := newHostStore(t, b)
			h := st.serve(t)
			tok := st.token(t, "kill", "w")
			acked := map[string]int64{} // path -> highest acknowledged version
			written := map[string]map[string]bool{}
			var mu sync.Mutex
			var wg sync.WaitGroup
			stop := make(chan struct{})
			for w := 0; w < 4; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						path := fmt.Sprintf("w%d/f%d.md", w, i%5)
						body := fmt.Sprintf("writer %d write %d %s", w, i, strings.Repeat("z", i%300))
						mu.Lock()
						if written[path] == nil {
							written[path] = map[string]bool{}
						}
						written[path][body] = true
						mu.Unlock()
						r, err := tryPut(h, tok, path, body)
						if err != nil {
							return // the server is gone
						}
						if r.status == 200 {
							mu.Lock()
							if v := r.num("version"); v > acked[path] {
								acked[path] = v
							}
							mu.Unlock()
						}
					}
				}(w)
			}
			time.Sleep(700 * time.Millisecond)
			h.kill()
			close(stop)
			wg.Wait()
			if len(acked) == 0 {
				t.Fatal("no write was acknowledged before the kill")
			}
			h2 := st.serve(t)
			for path, v := range acked {
				g := h2.get(t, tok, path).want(t, 200, "WorkspaceFile")
				if g.num("version") < v {
					t.Fatalf("%s: version %d after restart, %d was acknowledged", path, g.num("version"), v)
				}
				if !written[path][g.str("content")] {
					t.Fatalf("%s holds content nobody wrote: %.100q", path, g.str("content"))
				}
			}
		})
	}
}

// tryPut is put without failing the test when the server is gone.
func tryPut(h *hostServer, tok, path, body string) (reply, error) {
	raw, _ := json.Marshal(map[string]string{"content": body})
	req, _ := newRequest("PUT", h.url+"/v1/host/workspace/files/"+path, string(raw))
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := hostHTTP.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	r := reply{status: resp.StatusCode}
	if err := json.NewDecoder(resp.Body).Decode(&r.body); err != nil {
		return reply{}, err // cut off mid-answer: not acknowledged
	}
	return r, nil
}

// TestHostIsolationFuzz: random principals write, delete, read and list
// random paths; each sees exactly its own model of its files and never
// another's content, whatever the path, version, prefix or snapshot.
func TestHostIsolationFuzz(t *testing.T) {
	for _, b := range hostBackends() {
		t.Run(b.name, func(t *testing.T) {
			st := newHostStore(t, b)
			h := st.serve(t)
			type principal struct {
				name  string
				token string
				files map[string]string
				snaps []string
			}
			var ps []*principal
			for _, tenant := range []string{"t1", "t2", "t3"} {
				for _, ws := range []string{"a", "b"} {
					ps = append(ps, &principal{name: tenant + "/" + ws, token: st.token(t, tenant, ws), files: map[string]string{}})
				}
			}
			seed := time.Now().UnixNano()
			t.Logf("seed %d", seed)
			rng := rand.New(rand.NewPCG(uint64(seed), 7))
			paths := []string{"SOUL.md", "a/b.md", "a/c.md", "IDENTITY.md", "x"}
			for i := 0; i < 300; i++ {
				p := ps[rng.IntN(len(ps))]
				path := paths[rng.IntN(len(paths))]
				switch op := rng.IntN(6); op {
				case 0, 1:
					body := fmt.Sprintf("%s owns this, write %d", p.name, i)
					h.put(t, p.token, path, body, "").want(t, 200, "")
					p.files[path] = body
				case 2:
					r := h.call(t, "DELETE", "/v1/host/workspace/files/"+path, p.token, nil, "")
					if _, ok := p.files[path]; ok != (r.status == 200) {
						t.Fatalf("%s delete %s: HTTP %d, model has it: %v", p.name, path, r.status, ok)
					}
					delete(p.files, path)
				case 3:
					r := h.call(t, "GET", fmt.Sprintf("/v1/host/workspace/files/%s?version=%d", path, 1+rng.IntN(5)), p.token, nil, "")
					if r.status == 200 && !strings.HasPrefix(r.str("content"), p.name+" owns this") {
						t.Fatalf("%s read another's content: %s", p.name, r.raw)
					}
				case 4:
					run := h.call(t, "POST", "/v1/host/runs", p.token, nil, "").want(t, 201, "")
					p.snaps = append(p.snaps, run.str("snapshotId"))
				case 5:
					other := ps[rng.IntN(len(ps))]
					if len(other.snaps) > 0 {
						snap := other.snaps[rng.IntN(len(other.snaps))]
						r := h.call(t, "GET", "/v1/host/workspace/files?snapshot="+snap, p.token, nil, "")
						if other != p && r.status != 404 {
							t.Fatalf("%s used %s's snapshot: %s", p.name, other.name, r.raw)
						}
					}
				}
				// After every step, the principal's view is its model.
				g := h.get(t, p.token, path)
				want, ok := p.files[path]
				if ok != (g.status == 200) || ok && g.str("content") != want {
					t.Fatalf("step %d: %s sees %s as %s, model %q", i, p.name, path, g.raw, want)
				}
			}
			for _, p := range ps {
				for _, prefix := range []string{"", "a", "a/", "S"} {
					l := h.call(t, "GET", "/v1/host/workspace/files?prefix="+prefix, p.token, nil, "")
					n := 0
					for path := range p.files {
						if strings.HasPrefix(path, prefix) {
							n++
						}
					}
					if got := len(l.body["files"].([]any)); got != n {
						t.Fatalf("%s lists %d files under %q, owns %d: %s", p.name, got, prefix, n, l.raw)
					}
				}
			}
		})
	}
}

// TestHostReplicasShareEvents: two aw serve on one PostgreSQL; a stream on
// one sees writes made through the other, woken by NOTIFY (polling is set
// to a minute, so only the wake-up can deliver in time), and resumes
// across replicas with Last-Event-ID.
func TestHostReplicasShareEvents(t *testing.T) {
	b := hostBackends()[1]
	st := newHostStore(t, b)
	a := st.serve(t, "--event-poll", "1m")
	c := st.serve(t, "--event-poll", "1m")
	tok := st.token(t, "rep", "w")
	ev := c.stream(t, tok, "")
	time.Sleep(200 * time.Millisecond) // the stream is listening
	a.put(t, tok, "DIRECTIVES.md", "from replica a", "").want(t, 200, "")
	if e := ev.next(t, 20*time.Second); e["path"] != "DIRECTIVES.md" || e["version"] != 1.0 {
		t.Fatalf("%v", e)
	}
	a.put(t, tok, "DIRECTIVES.md", "again", `"v1"`).want(t, 200, "")
	c.put(t, tok, "DIRECTIVES.md", "stale on the other replica", `"v1"`).code(t, 409, "workspace_conflict")
	if e := ev.next(t, 20*time.Second); e["version"] != 2.0 {
		t.Fatalf("%v", e)
	}
	resumed := a.stream(t, tok, "1")
	if e := resumed.next(t, 20*time.Second); e["version"] != 2.0 {
		t.Fatalf("resume across replicas: %v", e)
	}
}

// TestHostOpenAPIServed: the served document is the committed one, and
// every endpoint the server answers is in it.
func TestHostOpenAPIServed(t *testing.T) {
	st := newHostStore(t, hostBackends()[0])
	h := st.serve(t)
	r := h.call(t, "GET", "/v1/openapi.json", "", nil, "")
	committed, err := os.ReadFile(filepath.Join("..", "..", "engine", "host", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r.status != 200 || string(r.raw) != string(committed) {
		t.Fatalf("the served OpenAPI document is not the committed one")
	}
	if r.body["openapi"] != "3.1.0" {
		t.Fatalf("openapi %v", r.body["openapi"])
	}
	paths := r.body["paths"].(map[string]any)
	for _, p := range []string{"/v1/host/capabilities", "/v1/openapi.json", "/v1/host/workspace/files", "/v1/host/workspace/files/{path}", "/v1/host/workspace/history/{path}", "/v1/host/workspace/events", "/v1/host/runs"} {
		if paths[p] == nil {
			t.Errorf("the document lacks %s", p)
		}
	}
}

// TestHostResumeAfterPrunedEvents: a Last-Event-ID older than the events
// kept gets workspace.gap first (re-list), then every event still kept.
func TestHostResumeAfterPrunedEvents(t *testing.T) {
	st := newHostStore(t, hostBackends()[0])
	h := st.serve(t, "--keep-events", "5")
	tok := st.token(t, "gap", "w")
	for i := 1; i <= 12; i++ {
		h.put(t, tok, "g.md", fmt.Sprint(i), "").want(t, 200, "")
	}
	ev := h.stream(t, tok, "2")
	select {
	case typ := <-ev.types:
		if typ != "workspace.gap" {
			t.Fatalf("first event %s, want workspace.gap", typ)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no event")
	}
	for want := 6.0; want <= 12; want++ {
		if e := ev.next(t, 10*time.Second); e["version"] != want {
			t.Fatalf("after the gap: %v, want version %v", e, want)
		}
	}
	// A resume within what is kept has no gap.
	ok := h.stream(t, tok, "8")
	if typ := <-ok.types; typ != "workspace.updated" {
		t.Fatalf("resume within the kept events began with %s", typ)
	}
}
