package semantic

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Hybrid ranking: when search.embeddings.baseUrl and model are set, the
// best BM25 candidates and the query are embedded by an OpenAI-compatible
// endpoint and re-ranked by a blend of both scores. Only those candidates
// are ever sent (never the whole workspace), each chunk's vector is cached
// by a hash of the model and its text, and the call is web egress: it runs
// only where the permission gate lets a web call run without asking (Auto
// mode, an approved plan in Plan mode, a run granted the web in Manual
// mode) and at --tier exec. Elsewhere the ranking is BM25 alone and the
// envelope says why; semantic search itself is never staged.

// rerankPool is how many of the best BM25 chunks the embeddings re-rank.
const rerankPool = 30

// embedWeight is the share of the vector similarity in the blended score.
const embedWeight = 0.5

// EmbedState says whether the embeddings endpoint took part in a ranking.
type EmbedState struct {
	Model  string `json:"model"`
	Status string `json:"status"` // used, skipped, failed
	Reason string `json:"reason,omitempty"`
	Cached int    `json:"cached"` // chunk vectors found in the cache
	Sent   int    `json:"sent"`   // texts sent to the endpoint
}

// embeddingsConfigured is nil when hybrid ranking is off; else its state,
// with Status "skipped" already set when this call may not reach out.
func embeddingsConfigured(ws *workspace.Workspace) *EmbedState {
	e := ws.Settings.Search.Embeddings
	if e.BaseURL == "" || e.Model == "" {
		return nil
	}
	st := &EmbedState{Model: e.Model}
	if !ws.Allows(workspace.TierExec) {
		st.Status, st.Reason = "skipped", "the embeddings endpoint is network egress and this call's --tier is below exec"
		return st
	}
	if ws.Settings.PermissionMode == gate.Manual && !slices.Contains(ws.Grants, "web") {
		st.Status, st.Reason = "skipped", "in Manual mode web calls need a human's approval each, so semantic search ranks with BM25 alone (a human can choose Plan or Auto mode with `aw config set permissionMode`)"
		return st
	}
	d, err := gate.Check(ws, gate.Operation{
		Kind:   "web",
		Title:  "Semantic search embeddings via " + e.BaseURL,
		Hash:   gate.Hash(map[string]any{"action": "semantic_search_embeddings", "baseUrl": e.BaseURL, "model": e.Model}),
		Resume: gate.Resume{Tool: "workspace_inspect", Arguments: map[string]any{"action": "semantic_search"}},
	})
	switch {
	case err != nil && ws.Settings.PermissionMode == gate.Plan:
		st.Status, st.Reason = "skipped", "in Plan mode web calls run only under an approved plan, and none is approved; ranked with BM25 alone"
	case err != nil:
		st.Status, st.Reason = "skipped", err.Error()
	case !d.Run:
		st.Status, st.Reason = "skipped", "the permission gate did not let a web call run"
	}
	return st
}

// rerank blends BM25 with the cosine similarity of query and chunk
// vectors. On any failure it keeps the BM25 order and says why.
func rerank(ctx context.Context, ws *workspace.Workspace, q string, rs []Result, st *EmbedState) []Result {
	if len(rs) == 0 {
		st.Status = "used"
		return rs
	}
	cache := loadVectors(ws)
	texts := make([]string, len(rs))
	keys := make([][16]byte, len(rs))
	vecs := make([][]float32, len(rs))
	var missing []int
	for i, r := range rs {
		texts[i] = r.Path + "\n" + r.Symbol + "\n" + r.Snippet
		keys[i] = vectorKey(st.Model, texts[i])
		if v, ok := cache[keys[i]]; ok {
			vecs[i] = v
			st.Cached++
		} else {
			missing = append(missing, i)
		}
	}
	input := []string{q}
	for _, i := range missing {
		input = append(input, texts[i])
	}
	st.Sent = len(input)
	got, err := embed(ctx, ws, st.Model, input)
	if err == nil && len(got) != len(input) {
		err = fmt.Errorf("the endpoint returned %d vectors for %d texts", len(got), len(input))
	}
	if err != nil {
		st.Status, st.Reason = "failed", err.Error()+"; ranked with BM25 alone"
		return rs
	}
	qv := got[0]
	for k, i := range missing {
		vecs[i] = got[k+1]
		cache[keys[i]] = got[k+1]
	}
	if persistOK(ws) {
		saveVectors(ws, cache)
	}
	top := rs[0].Score
	out := slices.Clone(rs)
	for i := range out {
		sim := cosine(qv, vecs[i])
		out[i].Score = math.Round(((1-embedWeight)*rs[i].Score/top+embedWeight*sim)*1000) / 1000
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	st.Status = "used"
	return out
}

func cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// embed posts texts to the endpoint's /embeddings.
func embed(ctx context.Context, ws *workspace.Workspace, model string, input []string) ([][]float32, error) {
	e := ws.Settings.Search.Embeddings
	url := strings.TrimRight(e.BaseURL, "/") + "/embeddings"
	body, _ := json.Marshal(map[string]any{"model": model, "input": input})
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("search.embeddings.baseUrl %q is not a usable URL: %v", e.BaseURL, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if e.APIKeyEnv != "" {
		if key := os.Getenv(e.APIKeyEnv); key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("the embeddings endpoint %s could not be reached: %v", url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("reading the embeddings answer: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the embeddings endpoint %s answered HTTP %d: %s", url, resp.StatusCode, strings.TrimSpace(string(raw[:min(len(raw), 300)])))
	}
	var ans struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &ans); err != nil {
		return nil, fmt.Errorf("the embeddings endpoint %s did not answer OpenAI-style JSON: %v", url, err)
	}
	out := make([][]float32, len(input))
	for k, d := range ans.Data {
		i := d.Index
		if i < 0 || i >= len(out) {
			i = k
		}
		if i < len(out) {
			out[i] = d.Embedding
		}
	}
	for i, v := range out {
		if v == nil {
			return nil, fmt.Errorf("the embeddings endpoint returned no vector for input %d", i)
		}
	}
	return out, nil
}

// The vector cache: .agentic/index/vectors, entries keyed by a hash of the
// model and the embedded text. A damaged cache is ignored (and replaced).
const (
	vectorsName  = "vectors"
	vectorsMagic = "AWVEC001"
	maxVectors   = 20000
)

func vectorKey(model, text string) [16]byte {
	h := sha256.Sum256([]byte(model + "\x00" + text))
	var k [16]byte
	copy(k[:], h[:16])
	return k
}

func loadVectors(ws *workspace.Workspace) map[[16]byte][]float32 {
	out := map[[16]byte][]float32{}
	b, err := os.ReadFile(indexPath(ws, vectorsName))
	if err != nil || len(b) < 8 || string(b[:8]) != vectorsMagic {
		return out
	}
	r := store.NewDecoder(b[8:], errCorrupt)
	n := r.Uvarint()
	for i := uint64(0); i < n && r.Err() == nil; i++ {
		var k [16]byte
		copy(k[:], r.Bytes(16))
		dim := r.Uvarint()
		if dim > uint64(r.Len()/4) { // also keeps dim*4 from wrapping
			return map[[16]byte][]float32{}
		}
		raw := r.Bytes(dim * 4)
		if r.Err() != nil {
			return map[[16]byte][]float32{}
		}
		v := make([]float32, dim)
		for j := range v {
			v[j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:]))
		}
		out[k] = v
	}
	return out
}

func saveVectors(ws *workspace.Workspace, m map[[16]byte][]float32) {
	keys := make([][16]byte, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return bytes.Compare(keys[i][:], keys[j][:]) < 0 })
	if len(keys) > maxVectors {
		keys = keys[:maxVectors]
	}
	b := []byte(vectorsMagic)
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		v := m[k]
		b = append(b, k[:]...)
		b = binary.AppendUvarint(b, uint64(len(v)))
		for _, x := range v {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
	}
	os.MkdirAll(ws.Store.Path(indexDir), 0o755)
	store.WriteFile(indexPath(ws, vectorsName), b, 0o644)
}
