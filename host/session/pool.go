package session

// pool runs requests on long-lived goroutines. A fresh goroutine starts with
// a small stack that a request grows (and copies) several times; a pooled one
// keeps the stack it grew, which is measurable per call.
type pool struct {
	work chan func() // unbuffered: a send succeeds only to an idle worker
	idle chan struct{}
	quit chan struct{}
}

// maxIdle bounds the workers kept waiting between requests; busier moments
// start extra goroutines that exit when done.
const maxIdle = 8

func newPool() *pool {
	return &pool{work: make(chan func()), idle: make(chan struct{}, maxIdle), quit: make(chan struct{})}
}

// run runs f on an idle worker, or on a new one if none is idle.
func (p *pool) run(f func()) {
	select {
	case p.work <- f:
	default:
		go p.worker(f)
	}
}

func (p *pool) worker(f func()) {
	for {
		f()
		select {
		case p.idle <- struct{}{}: // a place among the idle workers
		default:
			return
		}
		select {
		case f = <-p.work:
			<-p.idle
		case <-p.quit:
			return
		}
	}
}

// stop ends the idle workers; busy ones end when their request is done.
func (p *pool) stop() { close(p.quit) }
