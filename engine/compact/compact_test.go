package compact

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestIsImportantKey(t *testing.T) {
	for key, want := range map[string]bool{
		"id": true, "status": true, "mode": true, "title": true, "kind": true, "destructive": true,
		"plan": true, "files": true, "commands": true, "approval": true, "approvals": true, "plans": true,
		"activePlan": true, "pendingPlan": true, "pendingApprovals": true,
		"planId": true, "transaction_id": true, "planPath": true, "contentPath": true, "path": true,
		"jobstatus": true, "exitStatus": false, "count": true, "url": true, "sha256": true,
		"transactions": true, "runs": true, "jobs": true, "taskBoards": true, "todoList": true, "boardTitle": true,
		"researchProjects": true, "sources": true, "queryText": true, "checkpoints": true,
		"content": false, "markdown": false, "text": false, "diffPreview": false, "resume": false,
		"fileCount": false, "finalUrl": false, "summary": false, "createdAt": false, "revision": false,
	} {
		if got := IsImportantKey(key); got != want {
			t.Errorf("IsImportantKey(%q) = %v, want %v", key, got, want)
		}
	}
}

func compactJSON(t *testing.T, in string, budget int) map[string]any {
	t.Helper()
	res, err := Compact([]byte(in), budget)
	if err != nil || !res.Envelope {
		t.Fatalf("Compact: %v envelope=%v", err, res.Envelope)
	}
	var out map[string]any
	if err := json.Unmarshal(res.JSON, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCompactRules(t *testing.T) {
	long := strings.Repeat("é", 5000)
	var facts []string
	for i := 0; i < 70; i++ {
		facts = append(facts, "fact")
	}
	fj, _ := json.Marshal(facts)
	in := `{"protocol":"agentic-workspace/v1","ok":true,"operation":"x.y","summary":"` + long + `",
	"retention":{"importance":"high","facts":` + string(fj) + `,"omit_when_summarizing":["data.plan.steps","data.list.*.text"]},
	"artifacts":[{"kind":"diff","path":"a","sha256":"s","bytes":1}],
	"data":{"status":"pending_approval","mode":"manual","markdown":"drop me","planId":"plan_1",
	  "plan":{"title":"T","objective":"drop","steps":["drop"],"files":[{"path":"p","change":"x"}]},
	  "list":[{"text":"drop","id":"item_1"}],
	  "approval":{"id":"approval_1","title":"Commit tx_1","extra":"drop","resume":{"tool":"workspace_edit","arguments":{"action":"commit","transaction_id":"tx_1","weird":{"nested":true}},"other":"drop"}}},
	"error":null,"unknownTop":1}`
	out := compactJSON(t, in, 1_000_000)
	if s := out["summary"].(string); len([]rune(s)) != MaxSummaryChars {
		t.Errorf("summary is %d chars, want %d", len([]rune(s)), MaxSummaryChars)
	}
	ret := out["retention"].(map[string]any)
	if n := len(ret["facts"].([]any)); n != MaxFacts {
		t.Errorf("%d facts, want %d", n, MaxFacts)
	}
	if _, ok := ret["omit_when_summarizing"]; ok {
		t.Errorf("omit list kept")
	}
	if _, ok := out["unknownTop"]; ok {
		t.Errorf("unknown top-level key kept")
	}
	data, _ := json.Marshal(out["data"])
	var w any
	want := `{"status":"pending_approval","mode":"manual","planId":"plan_1","plan":{"title":"T","files":[{"path":"p"}]},"approval":{"id":"approval_1","title":"Commit tx_1","resume":{"tool":"workspace_edit","arguments":{"action":"commit","transaction_id":"tx_1","weird":{"nested":true}}}}}`
	json.Unmarshal([]byte(want), &w)
	if wb, _ := json.Marshal(w); string(data) != string(wb) {
		t.Errorf("data:\n got %s\nwant %s", data, want)
	}
	if len(out["artifacts"].([]any)) != 1 {
		t.Errorf("artifacts dropped")
	}

	// Over budget: the recovery-field list, 30 facts, the approval re-attached.
	small := compactJSON(t, in, 500)
	if n := len(small["retention"].(map[string]any)["facts"].([]any)); n != MaxFactsOverBudget {
		t.Errorf("%d facts over budget, want %d", n, MaxFactsOverBudget)
	}
	sd, _ := json.Marshal(small["data"])
	for _, want := range []string{`"status":"pending_approval"`, `"data.planId=plan_1"`, `"data.approval.id=approval_1"`, `"transaction_id":"tx_1"`, `"tool":"workspace_edit"`} {
		if !strings.Contains(string(sd), want) {
			t.Errorf("over-budget data lacks %s: %s", want, sd)
		}
	}
	if strings.Contains(string(sd), "drop") || !strings.Contains(string(sd), "data.list.0.id=item_1") {
		t.Errorf("the walker must descend into every key but never bring back omitted paths: %s", sd)
	}
}

func TestCompactRecoveryKeepsIDs(t *testing.T) {
	var jobs []string
	for i := 0; i < 200; i++ {
		jobs = append(jobs, `{"id":"job_`+strings.Repeat("x", 10)+string(rune('a'+i%26))+`","status":"running","executable":"sleep","path":"some/long/path/to/a/file.txt"}`)
	}
	in := `{"protocol":"agentic-workspace/v1","ok":true,"operation":"inspect.changes","summary":"s","retention":{"importance":"high"},"data":{"jobs":[` + strings.Join(jobs, ",") + `]}}`
	res, err := Compact([]byte(in), 2000)
	if err != nil || !res.Recovery {
		t.Fatalf("want the recovery list: %v %+v", err, res)
	}
	if got := strings.Count(string(res.JSON), "=job_"); got != 200 {
		t.Errorf("%d job ids survive, want all 200", got)
	}
	if !strings.Contains(string(res.JSON), `"recoveryFieldsOmitted":400`) {
		t.Errorf("the statuses and paths should be the ones dropped: %s", res.JSON[:300])
	}
}

func TestCompactPassThrough(t *testing.T) {
	for _, in := range []string{`{"a":1}`, `[1,2]`, `"just text"`, `42`, `"{\"protocol\":\"other\"}"`} {
		res, err := Compact([]byte(in), 0)
		if err != nil || res.Envelope || string(res.JSON) != in {
			t.Errorf("%s: %s envelope=%v err=%v", in, res.JSON, res.Envelope, err)
		}
	}
	if _, err := Compact([]byte(`{oops`), 0); err == nil {
		t.Error("bad JSON accepted")
	}
	env := `{"protocol":"agentic-workspace/v1","ok":true,"operation":"a.b","summary":"s","retention":{"importance":"low"},"data":{"content":"x","path":"p"}}`
	q, _ := json.Marshal(env)
	if got := Text(string(q), 0); got != `{"protocol":"agentic-workspace/v1","ok":true,"operation":"a.b","summary":"s","retention":{"importance":"low"},"data":{"path":"p"}}` {
		t.Errorf("Text of a quoted envelope: %s", got)
	}
	if got := Text("plain words", 0); got != "plain words" {
		t.Errorf("Text changed plain text: %s", got)
	}
}
