// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

import {LaunchToken} from "./LaunchToken.sol";

interface IBalanceTracker {
    function onTransfer(address from, uint256 fromBalance, address to, uint256 toBalance) external;
}

interface IDividendSource {
    function dividendDistributor() external view returns (address);
}

/// @title TaxToken
/// @notice The launch token of a tax suite: a launch token that reports every balance change to its
/// factory's dividend distributor, which keeps holders' dividend shares current.
contract TaxToken is LaunchToken {
    IBalanceTracker public immutable dividendDistributor;

    constructor(string memory name_, string memory symbol_, uint256 supply, address factory_)
        LaunchToken(name_, symbol_, supply, factory_)
    {
        dividendDistributor = IBalanceTracker(IDividendSource(factory_).dividendDistributor());
    }

    /// The mint in the constructor (to the factory, which holds no shares) is not reported.
    function _afterTransfer(address from, address to) internal override {
        if (from == address(0)) return;
        dividendDistributor.onTransfer(from, balanceOf[from], to, balanceOf[to]);
    }
}
