import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { setRouterBase } from '../lib/router';
import { OperatorApp } from './OperatorApp';
import '../styles.css';
import './operator.css';

// Before the first render: every link and navigation of the console is under /operator.
setRouterBase('/operator');

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <OperatorApp />
    </StrictMode>,
  );
}
