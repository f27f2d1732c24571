import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { onTokenRequired } from './api/http';
import { startLiveSync } from './live/sync';
import { useUi } from './store/ui';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } },
});

onTokenRequired(() => useUi.getState().setTokenRequired());
// Once for the whole app, outside React: one EventSource however views mount.
startLiveSync(queryClient);

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <App />
      </QueryClientProvider>
    </StrictMode>,
  );
}
