package metrics_test

import (
	"bufio"
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/metrics"
)

// Register a generator's collector and serve it at /metrics. A service
// would http.ListenAndServe(addr, mux); here a test server shows what a
// scrape reads.
func Example() {
	g, err := cached.New(context.Background(), cached.Config{Assigner: uidgen.Static(7)})
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()

	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewCached(g))
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))

	for range 3 {
		if _, err := g.NextID(); err != nil {
			log.Fatal(err)
		}
	}
	srv := httptest.NewServer(mux)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		if l := lines.Text(); strings.HasPrefix(l, "uidgen_ids_total ") || strings.HasPrefix(l, "uidgen_worker_id ") {
			fmt.Println(l)
		}
	}
	// Output:
	// uidgen_ids_total 3
	// uidgen_worker_id 7
}
