import { hostCheck } from './pipeline.middleware';

describe('ALLOWED_HOSTS', () => {
  it('answers any well-formed host with "*", and no malformed one', () => {
    const any = hostCheck(['*']);
    expect(['localhost', 'localhost:8080', 'netkeel.example.com', '10.0.0.1:443', '[::1]:8080'].every(any)).toBe(true);
    expect(['', 'evil.example/path', 'a b', 'x:y', 'host:123456', 'user@host'].some(any)).toBe(false);
  });

  it('answers exact names (any port, any case) and domains given with a leading dot', () => {
    const check = hostCheck(['netkeel.example.com', '.lab.example', '127.0.0.1']);
    expect(['netkeel.example.com', 'NETKEEL.example.com:8443', 'lab.example', 'a.b.lab.example', '127.0.0.1:8080'].every(check)).toBe(true);
    expect(['evil.example', 'netkeel.example.com.evil.example', 'xlab.example', 'localhost'].some(check)).toBe(false);
  });
});
