help collectives
